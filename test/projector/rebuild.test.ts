import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered, watchPriceChanged } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { leaseId } from '../../shared/projections/control-docs.ts';
import { LeaseLostError, ProjectionLease } from '../../shared/projections/lease.ts';
import { serialsProjection } from '../../shared/projections/serials.projection.ts';
import { readProjectionStates } from '../../shared/projections/projection-states.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild, type RebuildProgress } from '../../shared/projections/rebuild.ts';
import { selectProjections } from '../../shared/projections/index.ts';
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

  it('names the known projections when asked for an unknown one', () => {
    expect(() => selectProjections(['nope'])).to.throw('unknown projection nope (known: watches, collections, configurators, serials, transparency-log)');
  });
});
