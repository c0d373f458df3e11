/**
 * Whether a log (its tiles) still stands behind the checkpoint signed last: the one question the signer asks before
 * every signature and a rebuild asks before its switch, answered here once.
 */
import { verifyConsistency, type Hash } from './merkle.ts';
import type { SignedCheckpointDoc } from './signed-checkpoints.ts';
import type { TileLog } from './tile-log.ts';

/**
 * Why the tree of the log's first `size` leaves cannot stand behind `signed`, or undefined when it extends it (or is
 * still short of it while it catches up: `atHead` says it has every event of the history, so that being short means
 * the history is).
 */
export async function divergence(
  log: TileLog, signed: SignedCheckpointDoc | undefined, atHead: boolean, size = log.size,
): Promise<string | undefined> {
  if (!signed) return undefined;
  if (size < signed.size) return atHead ? `the history holds ${size} events, fewer than the ${signed.size} signed before` : undefined;
  const root = Buffer.from(await log.root(signed.size)).toString('base64');
  return root === signed.root ? undefined : `the first ${signed.size} events of the history give another root than the checkpoint signed for that size`;
}

/**
 * Whether the tree of `size` leaves and root `root` extends `kept` (a checkpoint known from elsewhere than these
 * tiles: a signer's record, a store's document), by an RFC 9162 consistency proof computed from the log's own tiles
 * and checked against both roots, so that neither root is taken on the tiles' word. Nothing kept: any tree.
 */
export async function extendsCheckpoint(log: TileLog, kept: SignedCheckpointDoc | undefined, size: number, root: Hash): Promise<boolean> {
  if (!kept || kept.size === 0) return true;
  if (size < kept.size) return false;
  const { proof } = await log.consistency(kept.size, size);
  return verifyConsistency(kept.size, size, Buffer.from(kept.root, 'base64'), root, proof);
}
