/**
 * The latest signed checkpoint of the transparency log, kept as a control document of the read store (no
 * generations: a rebuild of the log's tiles is checked against it) and changed only by compare-and-set on its tree
 * size, which thus never goes down, whichever API process signs.
 */
import type { ControlDoc, ReadStore } from '../../ports/read-store.ts';
import { parseCheckpoint } from './checkpoint.ts';
import { noteText } from './signed-note.ts';

export const SIGNED_CHECKPOINT_ID = 'transparency:checkpoint';

export interface SignedCheckpointDoc extends ControlDoc {
  size: number;
  /** Base64. */
  root: string;
  /** The signed note, as served. */
  note: string;
}

export function signedCheckpointOf(control: readonly ControlDoc[] | ReadonlyMap<string, ControlDoc>): SignedCheckpointDoc | undefined {
  const doc = control instanceof Map ? control.get(SIGNED_CHECKPOINT_ID) : (control as readonly ControlDoc[]).find((found) => found._id === SIGNED_CHECKPOINT_ID);
  return doc as SignedCheckpointDoc | undefined;
}

/** The document of a signed note (its body read as a checkpoint). */
export function signedCheckpointDoc(note: string): SignedCheckpointDoc {
  const { size, root } = parseCheckpoint(noteText(note));
  return { _id: SIGNED_CHECKPOINT_ID, size, root: Buffer.from(root).toString('base64'), note };
}

/**
 * Stores `next` as the latest signed checkpoint if the one stored is still `previous` (none: nothing stored) and
 * `next` is a larger tree; false when another process stored one meanwhile, or `next` would take the log back.
 */
export async function storeSignedCheckpoint(store: ReadStore, next: SignedCheckpointDoc, previous: SignedCheckpointDoc | undefined): Promise<boolean> {
  if (previous && next.size <= previous.size) return false;
  return store.setControl(next, previous ? { size: previous.size, root: previous.root } : { size: { $exists: false } }, previous === undefined);
}
