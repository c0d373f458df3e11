/**
 * Takeover that does not depend on the queue (issue 40, item 5; projector/lease-poll.ts): a worker whose queue is
 * down (Redis stopped: no job is ever added or run) takes a projection whose owner died, once it has itself watched
 * the lease unchanged for a whole lease, and runs it to the head; meanwhile it reports the projection as having no
 * live owner. On main (6d537c4) only a queued job took a lease over, so such a worker never did. The same poll
 * takes back a crashed rebuild's reservation once it has watched it unchanged for a whole reservation, on its own
 * clock: no time another process wrote decides it.
 */
import { expect } from 'chai';
import { capturingLogger } from '../support/signed-log.ts';
import { pino } from 'pino';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import { leaseId } from '../../shared/read-model/projections/control-docs.ts';
import { ProjectionLease } from '../../shared/read-model/projections/lease.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { createProjector } from '../../projector/runner.ts';
import { leasePoll } from '../../projector/lease-poll.ts';
import { ProgressBoard } from '../../projector/progress-board.ts';
import { RESERVATION_TTL_MS, renewReservation, reserveGeneration } from '../../shared/read-model/projections/generations.ts';
import { GENERATIONS_ID } from '../../shared/ports/read-store.ts';
import { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
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
    const { logger, lines } = capturingLogger<{ msg: string; projections?: string[] }>();
    survivor = createProjector({
      eventStore, readStore, queue: downQueue, logger, projections: [serialsProjection], leaseTtlMs: TTL, pollIntervalMs: 60_000,
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
    // Said once, at the poll that found it so, for an operator's trace of the takeover.
    expect(lines.filter((line) => line.msg.startsWith('no live owner seen for a whole lease')).map((line) => line.projections)).to.deep.equal([['serials']]);
  });
});

describe('a projector\'s lease poll and the rebuilds\' reservations (issue 40)', () => {
  it('takes back a reservation it has seen unchanged for a whole reservation on its own clock, and keeps one whose count keeps moving', async () => {
    const readStore = createMemoryReadStore();
    const crashed = await reserveGeneration(readStore);
    const running = await reserveGeneration(readStore);
    // Its clock starts far from any other process's: only the time it has itself watched counts.
    let now = 9e12;
    const poll = leasePoll({
      readStore, watch: new LeaseWatch(), board: new ProgressBoard([]), names: [], ttlMs: TTL, monotonic: () => now,
      holds: () => true, takeOver: () => undefined,
    });
    const reservations = async () => Object.keys((await readStore.readControl()).find((doc) => doc._id === GENERATIONS_ID)?.['reservations'] ?? {}).map(Number);
    for (const step of [0, RESERVATION_TTL_MS / 2, RESERVATION_TTL_MS - 1]) {
      now = 9e12 + step;
      await renewReservation(readStore, running);
      await poll.poll();
    }
    expect(await reservations(), 'before a whole reservation').to.deep.equal([crashed, running]);
    now = 9e12 + RESERVATION_TTL_MS;
    await poll.poll();
    expect(await reservations()).to.deep.equal([running]);
  });
});
