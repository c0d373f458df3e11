/**
 * What the projector's `/healthz` says (issue 40): unhealthy, naming why, while a projection is parked on an event it
 * cannot apply, while one has had no live owner for a whole lease as this process sees the leases (lease-poll.ts),
 * or while the queue is unreachable and a projection is stale. Stale: still behind a head of the event store that
 * this process read more than `staleAfterMs` ago on its own monotonic clock (no time another process wrote). With
 * the queue up, a projection behind is one a job is coming for.
 */
import type { Health } from '../shared/process/health-server.ts';
import type { JobQueue } from '../shared/ports/job-queue.ts';
import type { Projector } from './projector.ts';

interface ProjectorHealthDeps {
  projector: Pick<Projector, 'status' | 'counters' | 'ownerless'>;
  queue: Pick<JobQueue, 'reachable'>;
  headPosition: () => Promise<number>;
  staleAfterMs: number;
  monotonic?: () => number;
}

export function projectorHealth(deps: ProjectorHealthDeps): () => Promise<Health> {
  const monotonic = deps.monotonic ?? (() => performance.now());
  /** The head each projection behind was first seen behind, and when (monotonic ms). */
  const behind = new Map<string, { head: number; since: number }>();
  return async () => {
    const projections = deps.projector.status();
    const head = await deps.headPosition();
    const now = monotonic();
    const stale: string[] = [];
    for (const { name, position } of projections) {
      const seen = behind.get(name);
      if (position >= head) behind.delete(name);
      else if (!seen || position >= seen.head) behind.set(name, { head, since: now });
      else if (now - seen.since > deps.staleAfterMs) stale.push(name);
    }
    const ownerless = deps.projector.ownerless();
    const queue = deps.queue.reachable() ? 'ok' : 'unreachable';
    const healthy = projections.every((p) => p.status === 'running') && ownerless.length === 0 && !(queue === 'unreachable' && stale.length > 0);
    return {
      healthy,
      checks: { projections, ownerless_projections: ownerless, queue, stale_projections: stale, jobs: deps.projector.counters() },
    };
  };
}
