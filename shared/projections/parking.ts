/**
 * Resuming a parked projection (`watchcat projections resume NAME`), after the fault that parked it was fixed: its
 * live checkpoint runs again from where it stopped, and the next job (the periodic signal at the latest) picks it up
 * in whichever process takes its lease.
 */
import type { ReadStore } from '../ports/read-store.ts';
import { liveCheckpointOf, readControlDocs, type CheckpointState } from './control-docs.ts';
import { ProjectionLease } from './lease.ts';
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

/**
 * Parks a projection from outside its runs (the transparency log's signer finding tiles that no longer give a root
 * it signed): takes its lease over, fencing any worker at it, so that no checkpoint written by one can bring it back
 * to running, and parks it on the position its live checkpoint stands at.
 */
export async function parkProjection(store: ReadStore, projection: Projection, owner: string, reason: string): Promise<void> {
  let lease: ProjectionLease | null = null;
  for (let attempt = 0; !lease && attempt < 10; attempt += 1) lease = await ProjectionLease.acquire(store, projection, owner, { preempt: true });
  if (!lease) throw new Error(`could not take the lease of projection ${projection.name} to park it`);
  try {
    await lease.park(lease.checkpoint.position, reason);
  } finally {
    await lease.release().catch(() => false);
  }
}
