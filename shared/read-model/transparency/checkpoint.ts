/**
 * The C2SP tlog-checkpoint body: the log's origin, the tree size in decimal and the root hash in base64, each on
 * a line of its own, then extension lines (non-empty, opaque to the spec: the serial index's root,
 * serial-index.ts). Signed as a note (signed-note.ts) under the origin as the signer's name; a witness's
 * cosignature covers the body whole, extension lines included (cosignature.ts).
 */
import type { Hash } from './merkle.ts';
import { NoteError, openNote, parseVerifierKey } from './signed-note.ts';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
  /** Extension lines, without their newlines. */
  extensions?: readonly string[];
}

/**
 * The log's origin: `<host of PUBLIC_BASE_URL>/watchcat/events` (docs/api.md, "Transparency log"); `localhost`
 * stands for the host of a deployment that does not know its address.
 */
export const logOrigin = (publicBaseUrl: string | undefined): string =>
  `${publicBaseUrl ? new URL(publicBaseUrl).host : 'localhost'}/watchcat/events`;

export function checkpointBody({ origin, size, root, extensions = [] }: Checkpoint): string {
  if (extensions.some((line) => line === '' || line.includes('\n'))) throw new RangeError('an extension line is one non-empty line');
  return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n${extensions.map((line) => `${line}\n`).join('')}`;
}

/** Reads a checkpoint body: its first three lines, and the extension lines after them. */
export function parseCheckpoint(body: string): Checkpoint {
  const [origin = '', size = '', root = '', ...rest] = body.split('\n');
  const hash = Buffer.from(root, 'base64');
  if (origin === '' || !/^(0|[1-9]\d{0,15})$/.test(size) || Number(size) > Number.MAX_SAFE_INTEGER || hash.length !== 32 || hash.toString('base64') !== root) {
    throw new Error('not a tlog checkpoint: expected an origin line, a tree size and a base64 root hash');
  }
  // A body ends in a newline: what follows the last one is no line. An extension line is non-empty (C2SP
  // tlog-checkpoint), so an empty one is refused rather than skipped: skipped, a note whose text held a blank line
  // would read as a checkpoint however it was cut (signed-note.ts).
  const extensions = rest.slice(0, -1);
  if (extensions.includes('')) throw new Error('not a tlog checkpoint: an empty extension line');
  return { origin, size: Number(size), root: hash, ...(extensions.length > 0 && { extensions }) };
}

/** Why a checkpoint whose origin is `origin` is not the log of the keys named `names`, when it is not; else undefined. */
export const originProblem = (origin: string, names: readonly string[]): string | undefined =>
  (names.includes(origin) ? undefined : `the checkpoint's origin ${origin} is not the name of the log key that signed it (${names.join(', ')})`);

/**
 * The checkpoint of `note`, opened with the log's verifier key: its origin must be that key's name, since the log
 * signs under its origin (read-api/transparency/log-publisher.ts); a key's signature over another origin's checkpoint
 * vouches for no tree of this log. Throws a NoteError saying what does not hold, or an Error when the text is no checkpoint.
 */
export function openCheckpoint(note: string, verifierKeyText: string): Checkpoint {
  const checkpoint = parseCheckpoint(openNote(note, verifierKeyText));
  const problem = originProblem(checkpoint.origin, [parseVerifierKey(verifierKeyText).name]);
  if (problem !== undefined) throw new NoteError(problem);
  return checkpoint;
}
