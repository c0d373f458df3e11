/**
 * Resuming a parked projection (`watchcat projections resume NAME`), after the fault that parked it was fixed: its
 * live checkpoint runs again from where it stopped, and the next job (the periodic signal at the latest) picks it up
 * in whichever process takes its lease.
 */
import type { ReadStore } from '../../ports/read-store.ts';
import { liveCheckpointOf, readControlDocs, type CheckpointState } from './control-docs.ts';
import type { Projection } from './projection.ts';

/** True when the projection was parked and now runs; false when it was not parked. */
export async function resumeProjection(store: ReadStore, projection: Projection): Promise<boolean> {
  for (;;) {
    const { checkpoint } = liveCheckpointOf(await readControlDocs(store), projection);
    if (checkpoint?.status !== 'parked') return false;
    const resumed: CheckpointState = { ...checkpoint, status: 'running', parked: null };
    // On the token: an owner that took the lease meanwhile raised it, and the state is read again.
    if (await store.setControl(resumed, { token: checkpoint.token, status: 'parked' }, false)) return true;
  }
}
