/**
 * Whether one signed tree extends another, by an RFC 9162 consistency proof from the log checked against both roots:
 * what a receipt's holder asks of a newer checkpoint (services/audit/receipt/receipt-checkpoint.ts) and a monitor of each
 * new one (services/audit/log-watch.command.ts).
 */
import { EMPTY_ROOT, verifyConsistency } from './merkle.ts';

const EMPTY_ROOT_BASE64 = Buffer.from(EMPTY_ROOT).toString('base64');

/** A tree as a checkpoint states it: its size and its root in base64. */
export interface SignedTree {
  size: number;
  root: string;
}

/** The consistency proof from `from` to `to` leaves, as the log's JSON endpoint answers it. */
export type ConsistencyProofSource = (from: number, to: number) => Promise<{ root?: string; proof?: string[] }>;

/** Whether `newer` extends `older`: the same tree, or a larger one that `proofOf`'s proof shows holds it. */
export async function treeExtends(older: SignedTree, newer: SignedTree, proofOf: ConsistencyProofSource): Promise<boolean> {
  if (older.size > newer.size) return false;
  if (older.size === newer.size) return older.root === newer.root;
  // Every tree extends the empty one, whose root is fixed (RFC 9162, section 2.1.1): an empty tree stated with another
  // root is no tree of this log.
  if (older.size === 0) return older.root === EMPTY_ROOT_BASE64;
  const proof = await proofOf(older.size, newer.size);
  const hashes = (proof.proof ?? []).map((hash) => Buffer.from(hash, 'base64'));
  return proof.root === newer.root
    && verifyConsistency(older.size, newer.size, Buffer.from(older.root, 'base64'), Buffer.from(newer.root, 'base64'), hashes);
}
