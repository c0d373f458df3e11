/**
 * The `checkpoints` read collection: per projection, the position up to which it has applied the history, and
 * whether it stopped on an event it cannot apply.
 */
import type { ReadStore, WriteOp } from '../ports/read-store.ts';
import type { CheckpointDoc } from '../read-models/documents.ts';

export function checkpointDoc(name: string, position: number, error: string | null = null): CheckpointDoc {
  return { _id: name, position, status: error === null ? 'ok' : 'failed', error, updated_at: new Date().toISOString() };
}

/** The ops that store a checkpoint advancing past the stored one (the store's position rule lets it through). */
export function advanceOps(doc: CheckpointDoc): WriteOp[] {
  return [{ put: doc }];
}

/**
 * The ops that store a checkpoint at the position already stored, to change its status: the store skips a put at
 * the same position, so the stored one is removed first (a removal just past it passes the rule).
 */
export function replaceOps(doc: CheckpointDoc): WriteOp[] {
  return [{ delete: { _id: doc._id, position: doc.position + 1 } }, { put: doc }];
}

export async function loadCheckpoint(store: ReadStore, name: string): Promise<CheckpointDoc | null> {
  return store.get<CheckpointDoc>('checkpoints', name);
}

/**
 * The ops that set a checkpoint whatever the stored one says: a rebuilt generation reflects exactly `doc.position`,
 * so a later position left by the previous generation must not survive the switch.
 */
export function resetOps(doc: CheckpointDoc): WriteOp[] {
  return [{ delete: { _id: doc._id, position: Number.MAX_SAFE_INTEGER } }, { put: doc }];
}
