/**
 * `watchcat audit log watch URL [--state FILE] [--key KEY] [--once] [--every SECONDS] [--policy FILE]`: a monitor of the service's
 * transparency log, as a witness runs one. It keeps every checkpoint it has seen in a state file and checks each new
 * one against the last: a smaller tree is a rollback, another root for the same size (or the same root with other
 * extension lines: another serial index) or a consistency proof that fails is a fork; either exits 1, naming the leaves rewritten among the trees it kept (rewrite-locator.ts). The
 * verifier keys it trusts are kept in the state file too: first the one given, or the one the service served the
 * first time; then each key that co-signed a checkpoint with a trusted key during a rotation (log-key-trust.ts).
 * Each check first reads the service's key history (one request, which also lists the keys a rotation may teach)
 * and drops, for good, every trusted key it marks compromised; a history that cannot be read fails the check, since
 * a monitor must not go on trusting keys it cannot check. A checkpoint signed by no trusted key fails, exit 1; so
 * does one whose origin is not the name of the trusted key that signed it, or not the origin kept before; so,
 * with `--policy` (C2SP tlog-policy), does one without the witnesses' cosignatures its quorum asks for.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { originProblem, parseCheckpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { noteText, parseNote, parseVerifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { readPolicyFile, requirePolicy, type TlogPolicy } from '../../shared/read-model/transparency/tlog-policy.ts';
import { treeExtends, type ConsistencyProofSource } from '../../shared/read-model/transparency/tree-extension.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { AuditError } from './audit-sources.ts';
import { fetchBounded, type BoundedAnswer } from './bounded-fetch.ts';
import { keyName, listedKeys, openTrusted, readKeyHistory, withoutCompromised, type HistoryKey } from './log-key-trust.ts';
import { describeRewrite, locateRewrite } from './rewrite-locator.ts';

interface SeenCheckpoint { size: number; root: string; note: string; seen_at: string }
interface WatchState { url: string; verifier_keys: string[]; checkpoints: SeenCheckpoint[] }
/** A state file written before the monitor followed rotations: one pinned key. */
type StoredState = Omit<WatchState, 'verifier_keys'> & { verifier_keys?: string[]; verifier_key?: string };

async function fetchText(url: string): Promise<string> {
  let response: BoundedAnswer;
  try {
    response = await fetchBounded(url);
  } catch (error) {
    throw new AuditError(`cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new AuditError(`${url} answered ${response.status}`);
  return response.body.toString('utf8');
}

/** The service's log key history, each key with its `revoked` mark; an AuditError when it cannot be read. */
async function keyHistory(base: string): Promise<HistoryKey[]> {
  const url = `${base}/.well-known/transparency/keys`;
  const history = readKeyHistory(await fetchText(url));
  if (history === undefined) throw new AuditError(`${url} is not a key history: expected {"keys": [{"verifier_key": ...}]}`);
  return history;
}

function readState(file: string): WatchState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const { verifier_key: pinned, verifier_keys: keys, ...rest } = JSON.parse(readFileSync(file, 'utf8')) as StoredState;
    return { ...rest, verifier_keys: keys ?? (pinned === undefined ? [] : [pinned]) };
  } catch {
    throw new AuditError(`the state file ${file} is not the JSON this monitor writes`);
  }
}

function writeState(file: string, state: WatchState): void {
  // Written aside then renamed: a monitor stopped mid-write keeps its previous state whole.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** The service's consistency proofs. */
const proofsOf = (base: string): ConsistencyProofSource => async (from, to) =>
  JSON.parse(await fetchText(`${base}/api/public/transparency/consistency?from=${from}&to=${to}`)) as { root?: string; proof?: string[] };

/**
 * Fetches the latest checkpoint and checks it against the last one kept, by the keys `state` trusts (the keys
 * `dropped` as compromised already left out, named if no trusted key signed it); a co-signer is learned from the
 * service's key `history`. Answers the state with the checkpoint added.
 */
async function checkOnce(
  context: CliContext, base: string, state: WatchState, history: readonly HistoryKey[], dropped: readonly string[], policy: TlogPolicy | undefined,
): Promise<WatchState> {
  const note = await fetchText(`${base}/.well-known/transparency/checkpoint`);
  let current, learned, body;
  try {
    const opened = await openTrusted(note, state.verifier_keys, async () => listedKeys(history), dropped);
    current = parseCheckpoint(opened.text);
    // The log signs under its origin (read-api/transparency/log-publisher.ts): a trusted key's signature over another
    // origin vouches for no tree of this log.
    const problem = originProblem(current.origin, opened.signers);
    if (problem !== undefined) throw new AuditError(`checkpoint of ${base}: ${problem}`);
    learned = opened.learned;
    body = opened.text;
    if (policy) requirePolicy(policy, note);
  } catch (error) {
    throw error instanceof AuditError ? error : new AuditError(`checkpoint of ${base}: ${(error as Error).message}`);
  }
  const root = Buffer.from(current.root).toString('base64');
  const last = state.checkpoints.at(-1);
  // Sizes and roots compare only within one log: a state file is kept for one origin.
  const seenOrigin = last && parseCheckpoint(noteText(last.note)).origin;
  if (seenOrigin !== undefined && current.origin !== seenOrigin) {
    throw new AuditError(`checkpoint of ${base}: its origin ${current.origin} is not ${seenOrigin}, the origin of the checkpoints this state file kept: another log`);
  }
  const signed = { size: current.size, root };
  const proofs = proofsOf(base);
  /** The failure `what`, with where the rewrite lies among the trees seen; a proof the service refuses counts as not extending. */
  const failure = async (what: string) => {
    const rewrite = await locateRewrite(state.checkpoints, (tree) => treeExtends(tree, signed, proofs).catch(() => false));
    return new AuditError(rewrite ? `${what}; ${describeRewrite(rewrite)}` : what);
  };
  if (last && current.size < last.size) {
    throw await failure(`rollback: ${base} now signs a tree of ${current.size} leaves, after one of ${last.size} (root ${last.root})`);
  }
  if (last && current.size === last.size && root !== last.root) {
    throw await failure(`fork: ${base} signs two trees of ${current.size} leaves, roots ${last.root} and ${root}`);
  }
  // The same tree with other extension lines: a second serial index for one checkpoint, each signed by the log.
  if (last && current.size === last.size && parseNote(last.note).text !== body) {
    throw await failure(`fork: ${base} signs two checkpoints of ${current.size} leaves, root ${root}, with other extension lines`);
  }
  if (last && !(await treeExtends(last, signed, proofs))) {
    throw await failure(`fork: the tree of ${current.size} leaves does not extend the tree of ${last.size} leaves (root ${last.root}) signed before`);
  }
  // Learned only from a checkpoint that passed every check above.
  for (const key of learned) context.out(`${current.origin}: now trusts ${keyName(key)}, which co-signed the tree of ${current.size} leaves`);
  const verifier_keys = [...state.verifier_keys, ...learned];
  if (last && current.size === last.size) {
    context.out(`${current.origin}: ${current.size} leaves, unchanged`);
    return { ...state, verifier_keys };
  }
  context.out(`${current.origin}: ${current.size} leaves, root ${root}${last ? `, consistent with ${last.size}` : ''}`);
  return { ...state, verifier_keys, checkpoints: [...state.checkpoints, { size: current.size, root, note, seen_at: new Date().toISOString() }] };
}

async function runWatch(context: CliContext, url: string, options: { state: string; key?: string; once?: boolean; every: number; policy?: string }): Promise<void> {
  const base = url.replace(/\/$/, '');
  let policy;
  try {
    policy = options.policy === undefined ? undefined : readPolicyFile(options.policy);
  } catch (error) {
    throw new AuditError((error as Error).message);
  }
  let state = readState(options.state);
  if (state && options.key !== undefined && !state.verifier_keys.includes(options.key)) {
    throw new AuditError(`the state file ${options.state} was kept under other verifier keys: start a new state file`);
  }
  state ??= { url: base, verifier_keys: [options.key ?? (await fetchText(`${base}/.well-known/transparency/key`)).trim()], checkpoints: [] };
  for (;;) {
    const history = await keyHistory(base);
    const { kept, dropped } = withoutCompromised(state.verifier_keys, history);
    if (dropped.length > 0) {
      for (const key of dropped) context.out(`${parseVerifierKey(key).name}: no longer trusts ${keyName(key)}, which the service's key history marks compromised`);
      // Kept dropped even if the check below fails: a later history that forgets the mark does not bring the key back.
      state = { ...state, verifier_keys: kept };
      writeState(options.state, state);
    }
    state = await checkOnce(context, base, state, history, dropped, policy);
    writeState(options.state, state);
    if (options.once) return;
    await sleep(options.every * 1_000);
  }
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds above 0');
  return n;
}

export function logWatchCommand(log: Command, context: CliContext): void {
  log.command('watch')
    .description('monitor a service\'s transparency log: keep every checkpoint seen and check each new one for consistency with the last; exit code 1 on a fork or a rollback (naming the leaves rewritten among the trees seen), a checkpoint signed by no trusted key or a key history it cannot read (a trusted key the history marks compromised is dropped)')
    .argument('<url>', 'the service\'s public base URL')
    .option('--state <file>', 'where the checkpoints seen are kept', 'transparency-checkpoints.json')
    .option('--key <key>', 'the log\'s verifier key to trust first; default: the one the service served first, kept in the state file with each key that co-signs with a trusted one')
    .option('--once', 'check once and stop')
    .option('--every <seconds>', 'how often to check', seconds, 10)
    .option('--policy <file>', 'a witness policy (C2SP tlog-policy): each checkpoint must carry the cosignatures its quorum asks for; exit code 1 when one does not')
    .action((url: string, options: { state: string; key?: string; once?: boolean; every: number; policy?: string }) => runWatch(context, url, options));
}
