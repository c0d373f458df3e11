/**
 * What every process can know of each projection, from the control documents in one read: its live generation,
 * the position applied there, whether it is parked on an event it cannot apply (where, and why), and the last head
 * of the event store its owner confirmed having applied. Polled often by every API process (the read-model clock),
 * so it is one small query.
 */
import type { ControlDoc, ReadSnapshot, ReadStore } from '../../ports/read-store.ts';
import { liveCheckpointOf, readControlDocs, type HeadConfirmation } from './control-docs.ts';
import { PROJECTIONS } from './index.ts';

export interface ProjectionState {
  name: string;
  generation: number;
  position: number;
  status: 'running' | 'parked';
  parked: { position: number; reason: string } | null;
  updated_at: string | null;
  /** Null until its owner first confirmed a head in this generation: until then the read model is not built. */
  confirmed: HeadConfirmation | null;
}

/** The projections that have a checkpoint in their live generation (one that never ran has none yet). */
export function projectionStatesOf(docs: Map<string, ControlDoc>): ProjectionState[] {
  return PROJECTIONS.flatMap((projection) => {
    const { generation, checkpoint } = liveCheckpointOf(docs, projection);
    if (!checkpoint) return [];
    const { position, status, parked, updated_at, confirmed } = checkpoint;
    return [{ name: projection.name, generation, position, status, parked, updated_at, confirmed: confirmed ?? null }];
  });
}

export async function readProjectionStates(store: ReadStore): Promise<ProjectionState[]> {
  return projectionStatesOf(await readControlDocs(store));
}

/** A snapshot of the store and the projection states of its own control documents: what the read-model clock reads. */
export async function readSnapshotStates(store: ReadStore): Promise<{ view: ReadSnapshot; states: ProjectionState[] }> {
  const snapshot = await store.snapshot();
  return { view: snapshot, states: projectionStatesOf(new Map(snapshot.control.map((doc) => [doc._id, doc]))) };
}
