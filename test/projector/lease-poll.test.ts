/**
 * Takeover that does not depend on the queue (issue 40, item 5; projector/lease-poll.ts): a worker whose queue is
 * down (Redis stopped: no job is ever added or run) takes a projection whose owner died, once it has itself watched
 * the lease unchanged for a whole lease, and runs it to the head; meanwhile it reports the projection as having no
 * live owner. On main (6d537c4) only a queued job took a lease over, so such a worker never did.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import { leaseId } from '../../shared/projections/control-docs.ts';
import { ProjectionLease } from '../../shared/projections/lease.ts';
import { serialsProjection } from '../../shared/projections/serials.projection.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { appendAll } from './support/history.ts';
import { until } from '../support/until.ts';

/** A few polls a lease, on the real clock. */
const TTL = 400;

/** A queue whose server is down: nothing can be added, no job ever runs. */
const downQueue: JobQueue = {
  add: async () => { throw new Error('connect ECONNREFUSED (Redis is down)'); },
  process: () => undefined,
  onFailed: () => undefined,
  depth: async () => { throw new Error('connect ECONNREFUSED (Redis is down)'); },
  reachable: () => false,
  close: async () => undefined,
};

describe('takeover through the lease poll, the queue down (issue 40)', () => {
  const eventStore = openSqliteEventStore(':memory:');
  const readStore = createMemoryReadStore();
  let survivor: Projector | undefined;
  after(async () => {
    await survivor?.stop();
    await eventStore.close();
  });

  it('a worker with no queue takes the projection of a dead owner once it watched its lease a whole lease, saying meanwhile it has no live owner, and runs it to the head', async () => {
    await appendAll(eventStore, [serialRegistered('POLL-0001')]);
    // The owner takes the lease standing, then dies: nothing renews it again.
    const dead = (await ProjectionLease.acquire(readStore, serialsProjection, 'dead-worker', { ttlMs: TTL, standing: true }))!;
    const head = await appendAll(eventStore, [serialReportedStolen('POLL-0001')]);
    survivor = createProjector({
      eventStore, readStore, queue: downQueue, logger: pino({ level: 'silent' }), projections: [serialsProjection], leaseTtlMs: TTL, pollIntervalMs: 60_000,
    });
    survivor.start();
    const ownerlessSeen = new Set<string>();
    await until('the survivor ran the projection to the head', () => {
      for (const name of survivor!.ownerless()) ownerlessSeen.add(name);
      return survivor!.positions()['serials'] === head;
    }, 10_000);
    expect([...ownerlessSeen], 'reported without a live owner before it was taken').to.deep.equal(['serials']);
    const lease = (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'))!;
    expect(lease['token'], 'taken under a new token').to.be.above(dead.token);
    expect(lease['owner']).to.not.equal('dead-worker');
    await until('no projection reported without a live owner once taken', () => survivor!.ownerless().length === 0, 5_000);
  });
});
