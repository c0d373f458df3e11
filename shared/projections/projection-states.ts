/**
 * Where each projection stands, as every process reads it from the read store: its generation, the position it
 * has applied up to, and whether it is parked on an event it cannot apply. Read over the `checkpoints` collection
 * for now (one generation, 0; a failed checkpoint is parked at its position, with its error as the reason).
 */
import type { ReadStore } from '../ports/read-store.ts';
import type { CheckpointDoc } from '../read-models/documents.ts';

export interface ProjectionState {
  name: string;
  generation: number;
  position: number;
  status: 'running' | 'parked';
  parked: { position: number; reason: string } | null;
  updated_at: string | null;
}

export async function readProjectionStates(store: ReadStore): Promise<ProjectionState[]> {
  const checkpoints = await store.find<CheckpointDoc>('checkpoints', {});
  return checkpoints.map((checkpoint) => ({
    name: checkpoint._id,
    generation: 0,
    position: checkpoint.position,
    status: checkpoint.status === 'failed' ? 'parked' : 'running',
    parked: checkpoint.status === 'failed' ? { position: checkpoint.position, reason: checkpoint.error ?? '' } : null,
    updated_at: checkpoint.updated_at,
  }));
}
