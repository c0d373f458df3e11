/**
 * What every process can know of each projection, from the control documents in one read: its live generation,
 * the position applied there, and whether it is parked on an event it cannot apply (where, and why). Polled often
 * by every API process (the read-model clock), so it is one small query.
 */
import type { ReadStore } from '../ports/read-store.ts';
import { liveCheckpointOf, readControlDocs } from './control-docs.ts';
import { PROJECTIONS } from './index.ts';

export interface ProjectionState {
  name: string;
  generation: number;
  position: number;
  status: 'running' | 'parked';
  parked: { position: number; reason: string } | null;
  updated_at: string | null;
}

/** The projections that have a checkpoint in their live generation (one that never ran has none yet). */
export async function readProjectionStates(store: ReadStore): Promise<ProjectionState[]> {
  const docs = await readControlDocs(store);
  return PROJECTIONS.flatMap((projection) => {
    const { generation, checkpoint } = liveCheckpointOf(docs, projection);
    if (!checkpoint) return [];
    const { position, status, parked, updated_at } = checkpoint;
    return [{ name: projection.name, generation, position, status, parked, updated_at }];
  });
}
