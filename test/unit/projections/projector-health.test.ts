/**
 * The projector's `/healthz` (projector/projector-health.ts, issue 40): unhealthy while a projection has no live
 * owner, or while the queue is unreachable and a projection stays behind a head this process read longer ago than
 * the bound, judged on this process's own monotonic clock; a projection behind while the queue is up is one a job
 * is coming for.
 */
import { expect } from 'chai';
import { projectorHealth } from '../../../projector/projector-health.ts';
import type { ProjectionStatus, ProjectorCounters } from '../../../projector/projector.ts';

const COUNTERS: ProjectorCounters = { parkedSkips: 0, leaseHeld: 0, leaseLost: 0, conflicts: 0, retries: 0, handedBack: 0 };
const STALE_AFTER_MS = 30_000;

function fixture() {
  const world = { now: 0, head: 10, reachable: true, ownerless: [] as string[], positions: { serials: 10, watches: 10 } as Record<string, number> };
  const status = (): ProjectionStatus[] => Object.entries(world.positions).map(([name, position]) => ({ name, position, status: 'running', parked: null }));
  const check = projectorHealth({
    projector: { status, counters: () => COUNTERS, ownerless: () => world.ownerless },
    queue: { reachable: () => world.reachable },
    headPosition: async () => world.head,
    staleAfterMs: STALE_AFTER_MS,
    monotonic: () => world.now,
  });
  return { world, check };
}

describe('projector health (issue 40)', () => {
  it('is unhealthy naming a projection without a live owner, and healthy again once it has one', async () => {
    const { world, check } = fixture();
    world.ownerless = ['serials'];
    const red = await check();
    expect([red.healthy, red.checks['ownerless_projections']]).to.deep.equal([false, ['serials']]);
    world.ownerless = [];
    expect((await check()).healthy).to.equal(true);
  });

  it('with the queue unreachable, is unhealthy once a projection stays behind a head it read more than the bound ago, and says which', async () => {
    const { world, check } = fixture();
    world.reachable = false;
    world.head = 12;
    expect((await check()).healthy, 'behind, just seen so').to.equal(true);
    world.now += STALE_AFTER_MS;
    world.head = 14;
    world.positions['watches'] = 14;
    expect((await check()).healthy, 'behind for the bound exactly').to.equal(true);
    world.now += 1;
    const red = await check();
    expect([red.healthy, red.checks['queue'], red.checks['stale_projections']]).to.deep.equal([false, 'unreachable', ['serials']]);
    world.positions['serials'] = 12;
    expect((await check()).healthy, 'past the head it was behind: behind a newer head, seen just now').to.equal(true);
  });

  it('with the queue reachable, a projection long behind is not unhealthy: a job is coming for it', async () => {
    const { world, check } = fixture();
    world.head = 12;
    await check();
    world.now += STALE_AFTER_MS + 1;
    const health = await check();
    expect([health.healthy, health.checks['queue'], health.checks['stale_projections']]).to.deep.equal([true, 'ok', ['serials', 'watches']]);
  });
});
