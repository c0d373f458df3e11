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
 * The log's origin: `<host of PUBLIC_BASE_URL>/watchcat/events` (CONTRACT.md, "Transparency log"); `localhost`
 * stands for the host of a deployment that does not know its address.
 */
export const logOrigin = (publicBaseUrl: string | undefined): string =>
  `${publicBaseUrl ? new URL(publicBaseUrl).host : 'localhost'}/watchcat/events`;

export const checkpointBody = ({ origin, size, root }: Checkpoint): string =>
  `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\n`;
