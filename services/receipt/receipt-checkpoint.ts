/**
 * A receipt's checkpoint against a newer one (issue 32): a signed answer states the transparency checkpoint it was
 * served under (`Watchcat-Checkpoint: <size> <root>`, covered by its signature); a checkpoint signed later by the
 * log's key must extend that tree, which an RFC 9162 consistency proof shows. Holding both, the receipt's holder
 * knows the history the answer was given under is still the one the log stands behind.
 */
import { parseCheckpoint, type Checkpoint } from '../../shared/transparency/checkpoint.ts';
import { openNote } from '../../shared/transparency/signed-note.ts';
import { treeExtends, type ConsistencyProofSource, type SignedTree } from '../../shared/transparency/tree-extension.ts';
import type { SavedResponse } from './saved-response.ts';

export const CHECKPOINT_FIELD = 'watchcat-checkpoint';

export type PinnedCheckpoint = SignedTree;

/** The checkpoint a receipt pins, or why it pins none (absent, malformed, or not covered by its signature). */
export function pinnedCheckpoint(response: SavedResponse, covered: readonly string[]): PinnedCheckpoint | string {
  const values = response.headers[CHECKPOINT_FIELD];
  if (!values || values.length === 0) return 'the receipt states no transparency checkpoint (no Watchcat-Checkpoint header)';
  if (!covered.includes(`"${CHECKPOINT_FIELD}"`)) return 'the receipt\'s signature does not cover its Watchcat-Checkpoint header';
  const match = /^(\d+) ([A-Za-z0-9+/]{43}=)$/.exec(values.join(', '));
  if (!match) return `the receipt's Watchcat-Checkpoint is not "<tree size> <root base64>": ${values.join(', ')}`;
  return { size: Number(match[1]), root: match[2]! };
}

/**
 * Checks that the newer signed checkpoint `note` (opened with `verifierKey`) extends the tree `pinned`; answers the
 * newer checkpoint, or throws an Error naming what does not hold.
 */
export async function checkExtends(pinned: PinnedCheckpoint, note: string, verifierKey: string, proofOf: ConsistencyProofSource): Promise<Checkpoint> {
  let newer: Checkpoint;
  try {
    newer = parseCheckpoint(openNote(note, verifierKey));
  } catch (error) {
    throw new Error(`the newer checkpoint does not hold: ${(error as Error).message}`);
  }
  const root = Buffer.from(newer.root).toString('base64');
  if (newer.size < pinned.size) throw new Error(`the newer checkpoint holds ${newer.size} leaves, fewer than the ${pinned.size} the receipt pins: a rollback, or not a newer checkpoint`);
  if (newer.size === pinned.size && root !== pinned.root) {
    throw new Error(`fork: the receipt pins root ${pinned.root} for ${pinned.size} leaves, the newer checkpoint ${root}`);
  }
  if (!(await treeExtends(pinned, { size: newer.size, root }, proofOf))) {
    throw new Error(`fork: the tree of ${newer.size} leaves does not extend the tree of ${pinned.size} leaves (root ${pinned.root}) the receipt pins`);
  }
  return newer;
}
