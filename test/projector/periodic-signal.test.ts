/**
 * What the projector does between the event store's signals (README, "Failures heal or say why"): a periodic
 * signal makes good a signal that was lost, and each period it reads every projection's state from the store, so
 * its status names a projection another process parked; with the defaults an idle projector does not read the
 * store between periods, and an unreachable store is retried with a backoff from 100 ms, not continuously.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { ReadStoreUnavailableError, type ReadStore } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector, ProjectorOptions } from '../../projector/projector.ts';
import { ProjectionLease } from '../../shared/read-model/projections/lease.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { appendAll } from './support/history.ts';
import { until } from '../support/until.ts';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('projector between signals: the periodic signal, and the defaults', () => {
  let eventStore: EventStore;
  let readStore: ReadStore;
  let projector: Projector | undefined;
  /** Control-document reads and calls made while `down` (failing as an unreachable engine's). */
  let reads: number;
  const outage = { down: false };

  beforeEach(() => {
    eventStore = openSqliteEventStore(':memory:');
    const store = createMemoryReadStore();
    reads = 0;
    outage.down = false;
    const reachable = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => (...args: A): Promise<R> =>
      (outage.down ? Promise.reject(new ReadStoreUnavailableError(new Error('ECONNREFUSED'))) : call(...args));
    readStore = {
      ...store,
      readControl: reachable(async () => {
        reads += 1;
        return store.readControl();
      }),
      setControl: reachable(store.setControl),
      generation: (collection, number) => {
        const real = store.generation(collection, number);
        return { ...real, getStored: reachable(real.getStored), write: reachable(real.write) };
      },
    };
  });

  afterEach(async () => {
    outage.down = false;
    await projector?.stop();
    await eventStore.close();
  });

  const started = (options: Partial<ProjectorOptions> = {}) => {
    projector = createProjector({
      eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, projections: [serialsProjection], ...options,
    });
    projector.start();
    return projector;
  };

  it('projects an append whose signal was lost at the next periodic signal, and says how long each batch took', async () => {
    // The event store's feed says nothing: only the periodic signal can start a run.
    const silent: EventStore = Object.assign(Object.create(eventStore) as EventStore, { onAppended: () => () => undefined });
    const batches: number[] = [];
    const since = performance.now();
    const runner = started({ eventStore: silent, pollIntervalMs: 50, onBatch: (_, seconds) => batches.push(seconds) });
    const head = await appendAll(eventStore, [serialRegistered('LOST-0001'), serialRegistered('LOST-0002')]);
    await runner.waitFor(head, 2_000);
    expect(await readStore.get('serials', 'LOST-0002')).to.include({ status: 'authentic', position: head });
    expect(batches).to.have.length.at.least(1);
    for (const seconds of batches) expect(seconds, 'a batch\'s seconds').to.be.within(0, (performance.now() - since) / 1e3);
  });

  it('waits for a lease held but not standing (a rebuild at its switch), and runs once it is let go, with no further signal', async () => {
    const rebuilding = (await ProjectionLease.acquire(readStore, serialsProjection, 'rebuild', { preempt: true }))!;
    const runner = started({ pollIntervalMs: 60_000, backoff: { firstMs: 5, maxMs: 20 } });
    const head = await appendAll(eventStore, [serialRegistered('WAIT-0001')]);
    await until('the job found the lease held', () => runner.counters().leaseHeld >= 2);
    await rebuilding.release();
    await runner.waitFor(head, 2_000);
    expect(await readStore.get('serials', 'WAIT-0001')).to.include({ status: 'authentic', position: head });
  });

  it('keeps an idle standing lease its own: renewed in the background, three of its lengths later still unexpired', async () => {
    const ttl = 200;
    const runner = started({ leaseTtlMs: ttl, pollIntervalMs: 60_000 });
    await runner.waitFor(await appendAll(eventStore, [serialRegistered('KEEP-0001')]), 2_000);
    const lease = async () => (await readStore.readControl()).find((doc) => doc._id === 'lease:serials')!;
    await until('the lease kept standing', async () => (await lease())['standing'] === true);
    const { token } = await lease();
    await sleep(3 * ttl);
    const kept = await lease();
    expect(kept['token'], 'the same owner').to.equal(token);
    expect(kept['expires_at'] as number, 'unexpired').to.be.greaterThan(Date.now());
    expect(runner.counters().leaseLost).to.equal(0);
  });

  it('names in its status a projection another process parked, from its periodic read of the store', async () => {
    // Another worker runs the projection and keeps its lease standing: this one only watches.
    const owner = createProjector({
      eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, projections: [serialsProjection], pollIntervalMs: 60_000,
    });
    owner.start();
    try {
      await owner.waitFor(await appendAll(eventStore, [serialRegistered('PARK-0001')]), 2_000);
      const watcher = started({ pollIntervalMs: 50 });
      await until('the watcher found the lease standing elsewhere', () => watcher.counters().leaseHeld >= 1);
      // Its job ends a moment later, once it has read until when the lease stands.
      await sleep(50);
      const other = (await ProjectionLease.acquire(readStore, serialsProjection, 'another-process', { preempt: true }))!;
      await other.park(other.checkpoint.position, 'tiles disagree');
      await other.release();
      await until('the status names the parked projection', () => watcher.status()[0]?.status === 'parked');
      expect(watcher.status()).to.deep.equal([{ name: 'serials', position: 1, status: 'parked', parked: { position: 1, reason: 'tiles disagree' } }]);
      expect(watcher.counters().parkedSkips, 'jobs of its own that found it parked').to.equal(0);
    } finally {
      await owner.stop();
    }
  });

  it('with the defaults, reads nothing between periods when idle, and keeps retrying an unreachable store, 100 then 200 ms apart, until a stop that does not wait for the next try', async () => {
    const runner = started();
    await runner.waitFor(await appendAll(eventStore, [serialRegistered('IDLE-0001')]), 2_000);
    await sleep(50);
    const idle = reads;
    await sleep(300);
    expect(reads - idle, 'control reads while idle, well within the first 5 s period').to.equal(0);

    outage.down = true;
    await appendAll(eventStore, [serialRegistered('IDLE-0002')]);
    await until('the run failed once', () => runner.counters().retries >= 1);
    const first = performance.now();
    await until('the run failed twice more', () => runner.counters().retries >= 3);
    // 100 then 200 ms apart (timers never fire early, so the elapsed time can only be longer; far less than the
    // 2 s cap twice over).
    expect(performance.now() - first, 'ms from the first retry to the third').to.be.within(280, 1_500);
    // Stopping now cuts the 400 ms pause before the next retry short.
    const stopping = performance.now();
    await runner.stop();
    expect(performance.now() - stopping, 'ms to stop').to.be.below(200);
  });
});
