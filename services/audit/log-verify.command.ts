/**
 * `watchcat audit log verify EXPORT --checkpoint FILE [--key KEY] [--log URL] [--policy FILE]`: rebuilds the transparency log from an
 * export (the whole history, from its first event) and checks it against a checkpoint the service signed. A
 * checkpoint holds only a size and a root, so by itself a mismatch says that the first `size` events differ from
 * the history signed, not which one. With `--log`, the service's consistency proofs locate the first leaf that
 * differs by bisection, O(log n) proofs: the export's first m leaves are the signed ones exactly when the proof from
 * m to the checkpoint's size verifies from the export's root of m to the checkpoint's root. The proofs are checked
 * against the signed root, so the service is trusted for nothing. With `--policy` (C2SP tlog-policy), the checkpoint
 * must also carry the witnesses' cosignatures the policy's quorum asks for: one history that they all saw.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { openCheckpoint, originProblem, parseCheckpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { entryText } from '../../shared/read-model/transparency/log-entry.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { verifyConsistency, type Hash } from '../../shared/read-model/transparency/merkle.ts';
import type { Checkpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { NoteError, noteText } from '../../shared/read-model/transparency/signed-note.ts';
import { readPolicyFile, requirePolicy, witnessedLine, type TlogPolicy } from '../../shared/read-model/transparency/tlog-policy.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { GENESIS } from './audit-record.ts';
import { AuditError } from './audit-sources.ts';
import { lastHolding } from './bisect.ts';
import { fetchBounded, readFileBounded } from './bounded-fetch.ts';
import { countLines, readExportFile } from './chain-audit.ts';
import { startProgress, stderrProgress } from './audit-progress.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A checkpoint or a key: a few hundred bytes, read to 1 MiB at most (`/dev/zero` named by mistake is refused). */
async function readText(file: string, what: string): Promise<string> {
  try {
    return (await readFileBounded(file)).toString('utf8');
  } catch (error) {
    throw new AuditError(`cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * The checkpoint, its signature checked with `key` (the text, or a file holding it) when given, and the witnesses'
 * cosignatures against `policy` (whose logs then stand for the key when it is not given). Its origin must be the name
 * of the key that signed it, as `receipt verify` and `audit log watch` require: a log key's signature over another
 * origin's checkpoint vouches for no tree of this log.
 */
async function signedCheckpoint(context: CliContext, file: string, key: string | undefined, policy: TlogPolicy | undefined): Promise<Checkpoint> {
  const note = await readText(file, 'checkpoint');
  const keyText = key !== undefined && existsSync(key) ? await readText(key, 'verifier key') : key;
  let signedBy: string[] = [];
  if (policy) {
    try {
      const verdict = requirePolicy(policy, note);
      context.out(witnessedLine(policy, verdict));
      signedBy = verdict.signedBy;
    } catch (error) {
      throw new AuditError(`checkpoint ${file}: ${(error as Error).message}`);
    }
  }
  try {
    if (keyText !== undefined) return openCheckpoint(note, keyText);
    // Checked or not, the text read is the one a signature covers (noteText, signed-note.ts), never a cut of its own.
    const checkpoint = parseCheckpoint(noteText(note));
    if (signedBy.length === 0) {
      context.note('note: signature not checked (give --key, as /.well-known/transparency/key serves it)');
      return checkpoint;
    }
    const problem = originProblem(checkpoint.origin, signedBy);
    if (problem !== undefined) throw new NoteError(problem);
    return checkpoint;
  } catch (error) {
    if (error instanceof NoteError) throw new AuditError(`checkpoint ${file}: ${error.message}`);
    throw error;
  }
}

/** The proof from `m` leaves to the checkpoint's size, from the service at `base`, checked against the signed root. */
async function proofHolds(base: string, checkpoint: Checkpoint, m: number, rootOfM: Hash): Promise<boolean> {
  if (m === checkpoint.size) return Buffer.from(rootOfM).equals(Buffer.from(checkpoint.root));
  const url = `${base}/api/public/transparency/consistency?from=${m}&to=${checkpoint.size}`;
  let answer: { root?: string; proof?: string[] };
  try {
    const response = await fetchBounded(url);
    if (!response.ok) throw new Error(`answered ${response.status}`);
    answer = JSON.parse(response.body.toString('utf8')) as typeof answer;
  } catch (error) {
    throw new AuditError(`cannot locate the leaf that differs: ${url}: ${(error as Error).message}`);
  }
  if (answer.root !== b64(checkpoint.root)) {
    throw new AuditError(`cannot locate the leaf that differs: ${base} no longer gives the tree of ${checkpoint.size} leaves that the checkpoint signed`);
  }
  return verifyConsistency(m, checkpoint.size, rootOfM, checkpoint.root, (answer.proof ?? []).map((hash) => Buffer.from(hash, 'base64')));
}

/** The index of the first leaf of the export that is not the signed one (the export's size when it only lacks some). */
async function firstDifferingLeaf(base: string, checkpoint: Checkpoint, tree: MemoryTree): Promise<number> {
  // The largest m whose first m leaves are the signed ones: m = 0 always is.
  return lastHolding(0, Math.min(tree.size, checkpoint.size), (m) => proofHolds(base, checkpoint, m, tree.root(m)));
}

async function runLogVerify(context: CliContext, file: string, options: { checkpoint: string; key?: string; log?: string; policy?: string }): Promise<void> {
  let checkpoint;
  try {
    const policy = options.policy === undefined ? undefined : readPolicyFile(options.policy);
    checkpoint = await signedCheckpoint(context, options.checkpoint, options.key, policy);
  } catch (error) {
    throw error instanceof AuditError ? error : new AuditError(`checkpoint ${options.checkpoint}: ${(error as Error).message}`);
  }
  const tree = new MemoryTree();
  const events: { position: number; stream: string; revision: number }[] = [];
  // Progress as `audit verify FILE` gives it: a million events take some twenty seconds.
  const progress = startProgress('log verify', { events: await countLines(file) }, stderrProgress(context.note));
  try {
    for await (const record of readExportFile(file)) {
      if (tree.size === 0 && record.previous_chain_hash !== undefined && !record.previous_chain_hash.equals(GENESIS)) {
        throw new AuditError(`${file} starts mid-history (position ${record.position}): the log is rebuilt from the first event, export without --from`);
      }
      tree.append(entryText(record));
      if (options.log) events.push({ position: record.position, stream: record.stream, revision: record.revision });
      progress.update(tree.size, record.position);
    }
  } finally {
    progress.stop();
  }
  /** Where the export first leaves the signed history, when the service at `--log` can say. */
  const located = async (): Promise<string> => {
    if (!options.log) return ' (give --log with the service\'s URL to name the first leaf that differs)';
    let index: number;
    try {
      index = await firstDifferingLeaf(options.log.replace(/\/$/, ''), checkpoint, tree);
    } catch (error) {
      // The finding stands whatever the service answers: only where it lies is left unsaid.
      if (error instanceof AuditError) return `; ${error.message}`;
      throw error;
    }
    const event = events[index];
    return event
      ? `; the first leaf that differs is leaf ${index}: the export's event at position ${event.position} (${event.stream} revision ${event.revision})`
      : `; the export's first ${index} events are the signed ones, leaf ${index} on is missing from it`;
  };
  if (tree.size < checkpoint.size) {
    throw new AuditError(`${file} holds ${tree.size} events, the checkpoint ${checkpoint.size}: events signed into the log are missing from the export${await located()}`);
  }
  const root = tree.root(checkpoint.size);
  if (!Buffer.from(root).equals(Buffer.from(checkpoint.root))) {
    throw new AuditError(`the first ${checkpoint.size} events of ${file} give root ${b64(root)}, the checkpoint says ${b64(checkpoint.root)}: `
      + `this is not the history that was signed (an event edited, removed, inserted or moved)${await located()}`);
  }
  context.out(`transparency log of ${file} matches the checkpoint of ${checkpoint.origin}: ${checkpoint.size} leaves, root ${b64(root)}`);
  if (tree.size > checkpoint.size) context.out(`the export holds ${tree.size - checkpoint.size} later events, not covered by this checkpoint`);
}

export function logVerifyCommand(log: Command, context: CliContext): void {
  log.command('verify')
    .description('rebuild the transparency log from an export and check it against a checkpoint; exit code 1 when it differs')
    .argument('<export>', 'an export of the whole history, written by `watchcat export`')
    .requiredOption('--checkpoint <file>', 'a checkpoint saved from /.well-known/transparency/checkpoint')
    .option('--key <key>', 'the log\'s verifier key (as /.well-known/transparency/key serves it), or a file holding it')
    .option('--log <url>', 'the service\'s public base URL: its consistency proofs name the first leaf that differs')
    .option('--policy <file>', 'a witness policy (C2SP tlog-policy): the checkpoint must carry the cosignatures its quorum asks for (and a signature of one of its logs)')
    .action((file: string, options: { checkpoint: string; key?: string; log?: string; policy?: string }) => runLogVerify(context, file, options));
}
