/**
 * The C2SP tlog-checkpoint body: the log's origin, the tree size in decimal and the root hash in base64, each on
 * a line of its own. Signed as a note (signed-note.ts) under the origin as the signer's name.
 */
import type { Hash } from './merkle.ts';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
}

/**
 * The log's origin: `<host of PUBLIC_BASE_URL>/watchcat/events` (docs/api.md, "Transparency log"); `localhost`
 * stands for the host of a deployment that does not know its address.
 */
export const logOrigin = (publicBaseUrl: string | undefined): string =>
  `${publicBaseUrl ? new URL(publicBaseUrl).host : 'localhost'}/watchcat/events`;

export const checkpointBody = ({ origin, size, root }: Checkpoint): string =>
  `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;

/** Reads a checkpoint body (its first three lines; extension lines after them are allowed and ignored). */
export function parseCheckpoint(body: string): Checkpoint {
  const [origin = '', size = '', root = ''] = body.split('\n');
  const hash = Buffer.from(root, 'base64');
  if (origin === '' || !/^(0|[1-9]\d{0,15})$/.test(size) || Number(size) > Number.MAX_SAFE_INTEGER || hash.length !== 32 || hash.toString('base64') !== root) {
    throw new Error('not a tlog checkpoint: expected an origin line, a tree size and a base64 root hash');
  }
  return { origin, size: Number(size), root: hash };
}
