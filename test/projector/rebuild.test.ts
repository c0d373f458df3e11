import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered, watchPriceChanged } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { GENERATIONS_ID, type ReadStore } from '../../shared/ports/read-store.ts';
import { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
import { leaseId } from '../../shared/read-model/projections/control-docs.ts';
import { RESERVATION_TTL_MS } from '../../shared/read-model/projections/generations.ts';
import { LeaseLostError, ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild, type RebuildProgress } from '../../shared/read-model/projections/rebuild.ts';
import { PROJECTIONS, selectProjections } from '../../shared/read-model/projections/index.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

const logger = pino({ level: 'silent' });

describe('rebuild', () => {
  let eventStore: EventStore;

  beforeEach(() => {
    eventStore = openSqliteEventStore(':memory:');
  });
  afterEach(() => eventStore.close());

  async function incrementallyBuilt() {
    const readStore = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore, readStore, queue, logger, batchSize: 3 });
    await projector.catchUp();
    await queue.close();
    return readStore;
  }

  it('gives the documents the incremental projector builds, and sets every checkpoint to the head', async () => {
    const head = await appendAll(eventStore, catalogueHistory(40));
    const incremental = await incrementallyBuilt();
    const rebuilt = createMemoryReadStore();
    const progress: RebuildProgress[] = [];
    const result = await rebuild({ eventStore, readStore: rebuilt, batchSize: 16, onProgress: (p) => progress.push(p) });
    expect(await snapshot(rebuilt)).to.deep.equal(await snapshot(incremental));
    expect(result).to.include({ position: head, events: head });
    expect((await readProjectionStates(rebuilt)).map((s) => s.position)).to.deep.equal([head, head, head, head, head]);
    expect(progress.map((p) => [p.position, p.events])).to.deep.equal([[16, 16], [32, 32], [48, 48], [head, head]]);
    expect(progress.every((p) => p.head === head && p.eventsPerSecond > 0)).to.equal(true);
  });

  it('lets readers see the old generation until the switch, then the new one at once', async () => {
    await appendAll(eventStore, catalogueHistory(5));
    const readStore = await incrementallyBuilt();
    const before = await snapshot(readStore);
    const head = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000), serialRegistered('NEW-0001')]);
    let seenDuringRebuild: unknown;
    await rebuild({ eventStore, readStore, beforeSwitch: async () => { seenDuringRebuild = await snapshot(readStore); } });
    expect(seenDuringRebuild).to.deep.equal(before);
    const after = await snapshot(readStore);
    expect(after).to.not.deep.equal(before);
    expect(await readStore.get('serials', 'NEW-0001')).to.include({ position: head });
    expect(after).to.deep.equal(await snapshot(await incrementallyBuilt()));
  });

  it('survives a lease lost before its switch (a stale release landing over it): the fenced catch-up runs again', async () => {
    // Seen once on FerretDB, whose conditional updates are not atomic across processes: the release of a live
    // worker the rebuild had just preempted landed over the rebuild's lease, and the whole rebuild failed.
    await appendAll(eventStore, catalogueHistory(5));
    const readStore = await incrementallyBuilt();
    const head = await appendAll(eventStore, [serialRegistered('NEW-0001')]);
    let switches = 0;
    const result = await rebuild({
      eventStore, readStore, beforeSwitch: async () => {
        switches += 1;
        if (switches > 1) return;
        const lease = (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'))!;
        await readStore.setControl({ ...lease, owner: 'worker', token: (lease['token'] as number) - 1, expires_at: 0 }, {}, false);
      },
    });
    expect(switches, 'the fenced catch-up, done again').to.equal(2);
    expect(result.position).to.equal(head);
    expect(await snapshot(readStore)).to.deep.equal(await snapshot(await incrementallyBuilt()));
  });

  it('rebuilds only the projections asked for and leaves the others and their checkpoints alone', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    const readStore = await incrementallyBuilt();
    const watchesBefore = await readStore.find('watches', {});
    const head = await appendAll(eventStore, [serialRegistered('ONLY-0001')]);
    await rebuild({ eventStore, readStore, projections: selectProjections(['serials']) });
    expect(await readStore.get('serials', 'ONLY-0001')).to.not.equal(null);
    expect(await readStore.find('watches', {})).to.deep.equal(watchesBefore);
    const positions = Object.fromEntries((await readProjectionStates(readStore)).map((s) => [s.name, s.position]));
    expect(positions).to.deep.equal({ watches: head - 1, collections: head - 1, configurators: head - 1, serials: head, 'transparency-log': head - 1 });
  });

  it('keeps the control documents few: the replaced generations\' checkpoints go with them', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    const readStore = await incrementallyBuilt();
    await rebuild({ eventStore, readStore });
    const { generation } = await rebuild({ eventStore, readStore });
    const checkpoints = (await readStore.readControl()).map((doc) => doc._id).filter((id) => id.startsWith('checkpoint:')).sort();
    expect(checkpoints).to.deep.equal(['collections', 'configurators', 'serials', 'transparency-log', 'watches'].map((name) => `checkpoint:${name}@${generation}`));
  });

  it('refuses a late checkpoint of a generation it replaced, and does not bring that checkpoint back', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    const readStore = await incrementallyBuilt();
    const stale = (await ProjectionLease.acquire(readStore, serialsProjection, 'worker'))!;
    const { generation } = await rebuild({ eventStore, readStore, projections: [serialsProjection] });
    const refused = await stale.saveCheckpoint(1, stale.generation).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(LeaseLostError);
    const checkpoints = (await readStore.readControl()).map((doc) => doc._id).filter((id) => id.startsWith('checkpoint:serials'));
    expect(checkpoints).to.deep.equal([`checkpoint:serials@${generation}`]);
  });

  it('ends under a steady write load faster than it projects: it reaches the head it read, not one that keeps moving', async () => {
    // Seen failing before: the rebuild chased the head, reading a batch for every batch appended meanwhile.
    await appendAll(eventStore, catalogueHistory(10));
    let reads = 0;
    let appended = 0;
    const busy: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        reads += 1;
        // Two serials appended for every batch read, for as long as the test lets the load run.
        if (appended < 400) {
          await appendAll(eventStore, [serialRegistered(`LOAD-${reads}-A`), serialRegistered(`LOAD-${reads}-B`)]);
          appended += 2;
        }
        return eventStore.readAll(range);
      },
    });
    const rebuilt = createMemoryReadStore();
    const result = await rebuild({ eventStore: busy, readStore: rebuilt, batchSize: 2 });
    expect(appended, 'the load was still running when the rebuild ended').to.be.below(400);
    expect(reads, 'batches read').to.be.below(100);
    // Switched at a position at least the head it read once the live workers were fenced; the rest is theirs.
    expect(result.position).to.be.at.least(catalogueHistory(10).length);
    expect((await readProjectionStates(rebuilt)).map((state) => state.position)).to.deep.equal(Array(5).fill(result.position));
  });

  it('writes no bulk into its generation while a worker holds a lease it let expire in the fenced catch-up, then takes it back and ends', async () => {
    // The leases are checked before each bulk of the fenced catch-up (ARCHITECTURE.md, "Projections": an owner
    // paused past its lease writes nothing more): a worker takes the serials lease once the rebuild's expired.
    const TTL = 1_000;
    let wall = 0;
    const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
    await appendAll(eventStore, Array.from({ length: 10 }, (_, i) => serialRegistered(`FIRST-${i}`)));
    const readStore = createMemoryReadStore();
    let heads = 0;
    let worker: ProjectionLease | null | undefined;
    let rebuildToken: number | undefined;
    const leaseOwner = async () => (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'))?.['owner'];
    const racing: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      // Twenty more serials are appended while the rebuild takes its leases: the fenced catch-up has ten batches.
      headPosition: async () => {
        heads += 1;
        if (heads === 2) await appendAll(eventStore, Array.from({ length: 20 }, (_, i) => serialRegistered(`FENCED-${i}`)));
        return eventStore.headPosition();
      },
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        if (heads === 2 && range.after >= 20 && worker === undefined) {
          rebuildToken = (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'))?.['token'] as number;
          // The worker judges expiry by its own watch: it sees the rebuild's lease held, then unchanged past a lease.
          const watch = new LeaseWatch();
          if (await ProjectionLease.acquire(readStore, serialsProjection, 'worker', { ttlMs: TTL, clock, watch })) throw new Error('the rebuild\'s live lease was taken');
          wall += TTL + 1;
          worker = await ProjectionLease.acquire(readStore, serialsProjection, 'worker', { ttlMs: TTL, clock, watch });
        }
        return eventStore.readAll(range);
      },
    });
    const writesUnderWorker: number[] = [];
    const watched: ReadStore = {
      ...readStore,
      generation: (collection, generation) => {
        const target = readStore.generation(collection, generation);
        return {
          ...target,
          write: async (ops, options) => {
            if (await leaseOwner() === 'worker') writesUnderWorker.push(ops.length);
            return target.write(ops, options);
          },
        };
      },
    };
    const result = await rebuild({ eventStore: racing, readStore: watched, projections: [serialsProjection], batchSize: 2, leaseTtlMs: TTL, clock });
    expect(worker, 'the rebuild\'s lease lasted leaseTtlMs, and had expired').to.be.instanceOf(ProjectionLease);
    expect(worker!.token).to.be.above(rebuildToken!);
    expect(writesUnderWorker, 'bulks written while the worker held the lease').to.deep.equal([]);
    expect(result.position).to.equal(30);
    const lease = (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'))!;
    expect(lease['token'], 'the rebuild took the lease back').to.be.above(worker!.token);
    expect(lease['owner']).to.not.equal('worker');
    expect(lease['expires_at'], 'then released it').to.equal(0);
    const serials = (await readStore.find('serials', {})).map((doc) => doc._id).sort();
    expect(serials).to.deep.equal([...Array.from({ length: 10 }, (_, i) => `FIRST-${i}`), ...Array.from({ length: 20 }, (_, i) => `FENCED-${i}`)].sort());
  });

  it('confirms no head below the position its checkpoints hold when a fenced batch reads past the head it read', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    let heads = 0;
    const growing: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      // While the rebuild takes its leases, one serial is appended before the head is read under them and three
      // just after: the catch-up's one batch reads past that head to the last of them.
      headPosition: async () => {
        heads += 1;
        if (heads === 2) await appendAll(eventStore, [serialRegistered('FENCED-1')]);
        const head = await eventStore.headPosition();
        if (heads === 2) await appendAll(eventStore, [serialRegistered('LATE-1'), serialRegistered('LATE-2'), serialRegistered('LATE-3')]);
        return head;
      },
    });
    const readStore = createMemoryReadStore();
    const result = await rebuild({ eventStore: growing, readStore });
    expect(result.position, 'the last serial appended').to.equal(await eventStore.headPosition());
    expect(await readStore.get('serials', 'LATE-3')).to.not.equal(null);
    const checkpoints = (await readStore.readControl()).filter((doc) => doc._id.startsWith('checkpoint:'));
    expect(checkpoints.map((checkpoint) => checkpoint['projection']), 'one checkpoint per projection').to.have.members(PROJECTIONS.map(({ name }) => name));
    for (const checkpoint of checkpoints) {
      expect(checkpoint['position'], checkpoint._id).to.equal(result.position);
      expect((checkpoint['confirmed'] as { head: number }).head, checkpoint._id).to.equal(result.position);
    }
  });

  it('dates its head confirmation when it read the head under the leases, before its catch-up, ages it by the catch-up, and claims no head appended during it', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    let wall = 1_700_000_000_000;
    const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
    let heads = 0;
    let read: { head: number; at: number } | undefined;
    let appendedDuringCatchUp = false;
    const growing: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      // The head read under the leases finds one serial more than the first read; the catch-up that applies it
      // takes two seconds on the rebuild's clock, during which three more are appended.
      headPosition: async () => {
        heads += 1;
        if (heads === 2) await appendAll(eventStore, [serialRegistered('FENCED-1')]);
        const head = await eventStore.headPosition();
        if (heads === 2) read = { head, at: wall };
        return head;
      },
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        if (read && !appendedDuringCatchUp) {
          appendedDuringCatchUp = true;
          wall += 2_000;
          await appendAll(eventStore, [serialRegistered('LATE-1'), serialRegistered('LATE-2'), serialRegistered('LATE-3')]);
        }
        return eventStore.readAll(range);
      },
    });
    const readStore = createMemoryReadStore();
    // One event a batch: the catch-up stops at the head it read, short of the serials appended meanwhile.
    const result = await rebuild({ eventStore: growing, readStore, projections: [serialsProjection], batchSize: 1, clock });
    expect(appendedDuringCatchUp, 'serials were appended during the catch-up').to.equal(true);
    expect(result.position).to.equal(read!.head);
    const checkpoint = (await readStore.readControl()).find((doc) => doc._id.startsWith('checkpoint:serials@'))!;
    expect(checkpoint['confirmed'], 'the head read under the leases, as of that read, and the catch-up\'s two seconds since').to.deep.equal({
      head: read!.head, at: new Date(read!.at).toISOString(), age_ms: 2_000,
    });
  });

  it('renews its reservation once a quarter of its life has passed since the last renewal, not at every batch', async () => {
    // Each batch of one event takes an eighth of the reservation's life on the rebuild's clock: twelve batches,
    // ended at 0, 1/8, ... 11/8 of it. A quarter of its life passes every second batch: renewed at 2/8, 4/8, ... 10/8.
    await appendAll(eventStore, Array.from({ length: 12 }, (_, i) => serialRegistered(`RES-${i}`)));
    let wall = 0;
    const clock: LeaseClock = { monotonic: () => wall, wall: () => wall };
    const readStore = createMemoryReadStore();
    /** When (on the rebuild's clock) the reservation's renewal count was written anew, and the count written. */
    const renewals: [number, number][] = [];
    const watched: ReadStore = {
      ...readStore,
      setControl: async (doc, condition, insertIfAbsent) => {
        const written = await readStore.setControl(doc, condition, insertIfAbsent);
        const count = doc._id === GENERATIONS_ID ? Object.values((doc['reservations'] ?? {}) as Record<string, number>)[0] : undefined;
        if (written && count !== undefined && count !== renewals.at(-1)?.[1]) renewals.push([wall, count]);
        return written;
      },
    };
    const step = RESERVATION_TTL_MS / 8;
    await rebuild({ eventStore, readStore: watched, projections: [serialsProjection], batchSize: 1, clock, onProgress: () => { wall += step; } });
    expect(renewals.map(([at]) => at / step), 'reserved, then renewed at (in eighths of its life)').to.deep.equal([0, 2, 4, 6, 8, 10]);
    expect(renewals.map(([, count]) => count), 'each renewal raises the count').to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('fails naming the projection whose lease it cannot take, and leaves readers on the live generation with nothing of its own', async () => {
    await appendAll(eventStore, catalogueHistory(3));
    const readStore = await incrementallyBuilt();
    const before = await snapshot(readStore);
    let attempts = 0;
    // Every write of the serials lease is refused, as if an owner renewed it at each attempt.
    const refusing: ReadStore = {
      ...readStore,
      setControl: async (doc, condition, insertIfAbsent) => {
        if (doc._id !== leaseId('serials')) return readStore.setControl(doc, condition, insertIfAbsent);
        attempts += 1;
        // Let the timers in: a rebuild that never stops trying must fail on mocha's timeout, not hang the process.
        await new Promise((resolve) => setImmediate(resolve));
        return false;
      },
    };
    const failure = await rebuild({ eventStore, readStore: refusing }).then(() => undefined, (error: unknown) => error);
    expect(String(failure)).to.equal('Error: could not take the lease of projection serials');
    expect(attempts, 'a few attempts, then it gives up').to.be.within(2, 20);
    expect(await snapshot(readStore), 'readers\' documents and the live checkpoints').to.deep.equal(before);
    for (const collection of ['watches', 'collections', 'configurators', 'serials'] as const) {
      expect(await readStore.storedGenerations(collection), collection).to.deep.equal([1]);
    }
  });

  it('reports its rate and its duration in seconds of its own run', async () => {
    // Each batch read takes at least 20 ms: the rebuild's run is at least that long per batch read so far, and at
    // most the time the test measured around it.
    await appendAll(eventStore, catalogueHistory(3));
    let reads = 0;
    const slow: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return eventStore.readAll(range);
      },
    });
    const rates: { events: number; rate: number; atLeast: number; atMost: number }[] = [];
    const startedBefore = performance.now();
    const result = await rebuild({
      eventStore: slow, readStore: createMemoryReadStore(), batchSize: 4,
      onProgress: (p) => rates.push({ events: p.events, rate: p.eventsPerSecond, atLeast: reads * 0.019, atMost: (performance.now() - startedBefore) / 1000 }),
    });
    const took = (performance.now() - startedBefore) / 1000;
    expect(rates.length).to.be.above(2);
    for (const { events, rate, atLeast, atMost } of rates) {
      expect(rate, `${events} events in ${atLeast} to ${atMost} s`).to.be.within(events / atMost, events / atLeast);
    }
    expect(result.seconds).to.be.within(reads * 0.019, took);
  });

  it('names the known projections when asked for an unknown one', () => {
    expect(() => selectProjections(['nope'])).to.throw('unknown projection nope (known: watches, collections, configurators, serials, transparency-log)');
  });
});
