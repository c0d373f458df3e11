/**
 * A receipt's checkpoint against a newer one (issue 32): a signed answer states the transparency checkpoint it was
 * served under (`Watchcat-Checkpoint: <size> <root>`, covered by its signature); a checkpoint signed later by the
 * log's key must extend that tree, which an RFC 9162 consistency proof shows. Holding both, the receipt's holder
 * knows the history the answer was given under is still the one the log stands behind.
 *
 * The pinned tree must also hold no event after the position the answer's data was read at (`X-Read-Model-Position`,
 * which the signature must then cover; issue 40): an AUTHENTIC whose own tree holds the theft contradicts itself.
 * The deployment's inclusion proof of the event at that position, checked against the pinned root, must give the
 * tree's last leaf; an event that is not in the pinned tree must be in the newer checkpoint's (which extends it) past
 * the pinned leaves. Whatever the deployment answers, only proofs that verify against signed roots are believed.
 */
import { openCheckpoint, type Checkpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { verifyInclusion } from '../../../shared/read-model/transparency/merkle.ts';
import { treeExtends, type ConsistencyProofSource, type SignedTree } from '../../../shared/read-model/transparency/tree-extension.ts';
import { isCanonicalBase64 } from './canonical-base64.ts';
import type { SavedResponse } from './saved-response.ts';

const CHECKPOINT_FIELD = 'watchcat-checkpoint';

type PinnedCheckpoint = SignedTree;

/** The checkpoint a receipt pins, or why it pins none (absent, malformed, or not covered by its signature). */
export function pinnedCheckpoint(response: SavedResponse, covered: readonly string[]): PinnedCheckpoint | string {
  const values = response.headers[CHECKPOINT_FIELD];
  if (!values || values.length === 0) return 'the receipt states no transparency checkpoint (no Watchcat-Checkpoint header)';
  if (!covered.includes(`"${CHECKPOINT_FIELD}"`)) return 'the receipt\'s signature does not cover its Watchcat-Checkpoint header';
  const match = /^(\d+) ([A-Za-z0-9+/]{43}=)$/.exec(values.join(', '));
  if (!match || !isCanonicalBase64(match[2]!)) return `the receipt's Watchcat-Checkpoint is not "<tree size> <root base64>": ${values.join(', ')}`;
  return { size: Number(match[1]), root: match[2]! };
}

/**
 * Checks that the newer signed checkpoint `note` (opened with `verifierKey`) extends the tree `pinned`; answers the
 * newer checkpoint, or throws an Error naming what does not hold.
 */
export async function checkExtends(pinned: PinnedCheckpoint, note: string, verifierKey: string, proofOf: ConsistencyProofSource): Promise<Checkpoint> {
  let newer: Checkpoint;
  try {
    newer = openCheckpoint(note, verifierKey);
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

/** An inclusion proof as the log's JSON endpoint answers it. */
export interface InclusionProof {
  root?: string;
  leaf_index?: number;
  leaf_hash?: string;
  proof?: string[];
}

/** The proof of the event at `position` in the tree of `size` leaves; undefined when that tree does not hold it (a 422). */
type InclusionProofSource = (position: number, size: number) => Promise<InclusionProof | undefined>;

/** The leaf index `proof` proves in the tree (`size`, `root` in base64), or undefined when it does not verify. */
function provenIndex(proof: InclusionProof, size: number, root: string): number | undefined {
  const { leaf_index: index, leaf_hash: leaf } = proof;
  if (proof.root !== root || typeof index !== 'number' || typeof leaf !== 'string') return undefined;
  const hashes = (proof.proof ?? []).map((hash) => Buffer.from(hash, 'base64'));
  return verifyInclusion(index, size, Buffer.from(leaf, 'base64'), hashes, Buffer.from(root, 'base64')) ? index : undefined;
}

/**
 * Checks that the tree `pinned` holds no event after `position` (where the receipt's data was read), given `newer`, a
 * signed checkpoint already shown to extend it; answers what shows it, or throws an Error naming what does not hold.
 */
export async function checkHoldsNothingAfter(
  pinned: PinnedCheckpoint, position: number, newer: Checkpoint, inclusionOf: InclusionProofSource,
): Promise<string> {
  if (pinned.size === 0) return 'the pinned tree is empty';
  const inPinned = await inclusionOf(position, pinned.size);
  if (inPinned !== undefined) {
    const index = provenIndex(inPinned, pinned.size, pinned.root);
    if (index === undefined) throw new Error(`the inclusion proof of the event at position ${position} does not verify against the pinned root ${pinned.root}`);
    const after = pinned.size - index - 1;
    if (after > 0) {
      throw new Error(`the pinned tree of ${pinned.size} leaves holds ${after} event${after === 1 ? '' : 's'} after position ${position}, where the answer's data was read: the answer had not seen ${after === 1 ? 'it' : 'them'}`);
    }
    return `the event at position ${position}, where the answer's data was read, is the last leaf of the pinned tree`;
  }
  const newerRoot = Buffer.from(newer.root).toString('base64');
  const inNewer = await inclusionOf(position, newer.size);
  if (inNewer === undefined) {
    throw new Error(`the checkpoint of ${newer.size} leaves holds no event at position ${position}, where the answer's data was read, so what the pinned tree holds after it cannot be shown (the log may not have reached it yet)`);
  }
  const index = provenIndex(inNewer, newer.size, newerRoot);
  if (index === undefined) throw new Error(`the inclusion proof of the event at position ${position} does not verify against the newer root ${newerRoot}`);
  if (index < pinned.size) throw new Error(`the event at position ${position} is leaf ${index}, inside the pinned tree of ${pinned.size} leaves, though the deployment said it was not`);
  return `the event at position ${position}, where the answer's data was read, is leaf ${index} of the newer tree, after the ${pinned.size} pinned leaves`;
}
