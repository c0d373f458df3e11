/**
 * `watchcat audit log verify EXPORT --checkpoint FILE [--key KEY]`: rebuilds the transparency log from an export
 * (the whole history, from its first event) and checks it against a checkpoint the service signed. A checkpoint
 * holds only a size and a root, so a mismatch says that the first `size` events differ from the history signed,
 * not which one: the service's tiles or proofs locate it.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseCheckpoint } from '../../shared/transparency/checkpoint.ts';
import { entryText } from '../../shared/transparency/log-entry.ts';
import { MemoryTree } from '../../shared/transparency/memory-tree.ts';
import { NoteError, openNote } from '../../shared/transparency/signed-note.ts';
import type { CliContext } from '../cli/cli-context.ts';
import { GENESIS } from './audit-record.ts';
import { AuditError } from './audit-sources.ts';
import { readExportFile } from './chain-audit.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new AuditError(`cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** The checkpoint's body: signature checked with `key` (the text, or a file holding it) when given. */
function checkpointText(context: CliContext, file: string, key: string | undefined): string {
  const note = readText(file, 'checkpoint');
  if (key === undefined) {
    context.note('note: signature not checked (give --key, as /.well-known/transparency/key serves it)');
    return note.slice(0, note.indexOf('\n\n') + 1) || note;
  }
  try {
    return openNote(note, existsSync(key) ? readText(key, 'verifier key') : key);
  } catch (error) {
    if (error instanceof NoteError) throw new AuditError(`checkpoint ${file}: ${error.message}`);
    throw error;
  }
}

async function runLogVerify(context: CliContext, file: string, options: { checkpoint: string; key?: string }): Promise<void> {
  let checkpoint;
  try {
    checkpoint = parseCheckpoint(checkpointText(context, options.checkpoint, options.key));
  } catch (error) {
    throw error instanceof AuditError ? error : new AuditError(`checkpoint ${options.checkpoint}: ${(error as Error).message}`);
  }
  const tree = new MemoryTree();
  for await (const record of readExportFile(file)) {
    if (tree.size === 0 && record.previous_chain_hash !== undefined && !record.previous_chain_hash.equals(GENESIS)) {
      throw new AuditError(`${file} starts mid-history (position ${record.position}): the log is rebuilt from the first event, export without --from`);
    }
    tree.append(entryText(record));
  }
  if (tree.size < checkpoint.size) {
    throw new AuditError(`${file} holds ${tree.size} events, the checkpoint ${checkpoint.size}: events signed into the log are missing from the export`);
  }
  const root = tree.root(checkpoint.size);
  if (!Buffer.from(root).equals(Buffer.from(checkpoint.root))) {
    throw new AuditError(`the first ${checkpoint.size} events of ${file} give root ${b64(root)}, the checkpoint says ${b64(checkpoint.root)}: `
      + 'this is not the history that was signed (an event edited, removed, inserted or moved)');
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
    .action((file: string, options: { checkpoint: string; key?: string }) => runLogVerify(context, file, options));
}
