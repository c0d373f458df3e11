import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore, type ReadStreamOptions } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { cachingStateLoader } from '../../services/write/handler/state-cache.ts';
import { watchDecider } from '../../services/write/watch/watch.decide.ts';
import { aCollection, aWatch } from '../unit/services/support/builders.ts';
import { readable } from '../support/readable-events.ts';

const WATCH = 'AUR-LU-001';

async function refusalOf(promise: Promise<unknown>): Promise<DomainError> {
  const outcome = await promise.then(() => undefined, (error: unknown) => error);
  expect(outcome).to.be.instanceOf(DomainError);
  return outcome as DomainError;
}

/** Two handles on one SQLite file, each with its own command service (and cache), as two processes would have. */
describe('cached aggregate states, with another process writing to the same file', function () {
  let dir: string;
  let ours: EventStore;
  let theirs: EventStore;
  let us: CommandService;
  let them: CommandService;

  beforeEach(async function () {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-state-cache-'));
    const file = join(dir, 'events.sqlite3');
    ours = openSqliteEventStore(file);
    theirs = openSqliteEventStore(file);
    us = createCommandService(ours, { actor: 'us' });
    them = createCommandService(theirs, { actor: 'them' });
    await us.defineCollection(aCollection());
    await us.publishWatch(aWatch());
    // Fills our cache with the watch as published.
    await us.registerSerial('AUR-0001', WATCH, 2024);
  });
  afterEach(async function () {
    await ours.close();
    await theirs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a registration once the other process has withdrawn the watch our cache holds as published', async function () {
    await them.withdrawWatch(WATCH);
    const refusal = await refusalOf(us.registerSerial('AUR-0002', WATCH, 2024));
    expect(refusal.message).to.equal(`watch ${WATCH} is withdrawn: no serial can be registered for it`);
    expect(await ours.readStream(streams.serial('AUR-0002'))).to.deep.equal([]);
  });

  it('registers with the watch name the other process revised after our cache was filled', async function () {
    const renamed = { en: 'Lumière Renamed', fr: 'Lumière Renommée' };
    await them.reviseWatch({ reference: WATCH, name: renamed });
    await us.registerSerial('AUR-0002', WATCH, 2024);
    const [registered] = readable(await ours.readStream(streams.serial('AUR-0002')));
    expect(registered?.data).to.deep.include({ model: renamed });
  });

  it('accepts a theft report after the other process recovered the serial our cache holds as stolen', async function () {
    // A stale "stolen" would refuse the report: a refusal appends nothing, so no expected revision could catch it.
    await us.reportSerialStolen('AUR-0001');
    await them.recoverSerial('AUR-0001');
    expect((await us.reportSerialStolen('AUR-0001')).appended).to.equal(1);
    const types = (await ours.readStream(streams.serial('AUR-0001'))).map((event) => event.type);
    expect(types).to.deep.equal(['SerialRegistered', 'SerialReportedStolen', 'SerialRecovered', 'SerialReportedStolen']);
  });

  it('decides a price change on the price the other process set, not on the cached one', async function () {
    await us.changeWatchPrice(WATCH, 1_300_000);
    await them.changeWatchPrice(WATCH, 1_400_000);
    await us.changeWatchPrice(WATCH, 1_500_000);
    const changes = readable(await ours.readStream(streams.watch(WATCH))).filter((event) => event.type === 'WatchPriceChanged');
    expect(changes.map((event) => event.data)).to.deep.equal([
      { reference: WATCH, price_cents: 1_300_000, previous_price_cents: 1_250_000 },
      { reference: WATCH, price_cents: 1_400_000, previous_price_cents: 1_300_000 },
      { reference: WATCH, price_cents: 1_500_000, previous_price_cents: 1_400_000 },
    ]);
  });
});

describe('the caching state loader', function () {
  let store: EventStore;
  let service: CommandService;
  /** The `options` of every `readStream` the loader made: undefined for a full read. */
  let reads: Array<ReadStreamOptions | undefined>;
  let spy: EventStore;
  const stream = streams.watch(WATCH);

  beforeEach(async function () {
    store = openSqliteEventStore(':memory:');
    service = createCommandService(store);
    await service.defineCollection(aCollection());
    await service.publishWatch(aWatch());
    reads = [];
    spy = Object.assign(Object.create(store) as EventStore, {
      readStream: (name: string, options?: ReadStreamOptions) => {
        reads.push(options);
        return store.readStream(name, options);
      },
    });
  });
  afterEach(() => store.close());

  it('once warm, reads only the events after the cached revision and answers what a full read answers', async function () {
    const loader = cachingStateLoader(spy);
    await loader.load(watchDecider, stream);
    await service.changeWatchPrice(WATCH, 1_300_000);
    await service.changeWatchStock(WATCH, 'out_of_stock');
    const warm = await loader.load(watchDecider, stream);
    const again = await loader.load(watchDecider, stream);
    expect(reads).to.deep.equal([undefined, { after: 0 }, { after: 2 }]);
    const fresh = await cachingStateLoader(store).load(watchDecider, stream);
    expect(warm).to.deep.equal(fresh);
    expect(again).to.deep.equal(fresh);
    expect(fresh.expected).to.equal(2);
  });

  it('does not answer a stream folded by another decider from the cache', async function () {
    const loader = cachingStateLoader(spy);
    const counting = { initialState: () => 0, evolve: (count: number) => count + 1 };
    await service.changeWatchPrice(WATCH, 1_300_000);
    await loader.load(watchDecider, stream);
    expect((await loader.load(counting, stream)).state).to.equal(2);
    expect(reads).to.deep.equal([undefined, undefined]);
  });

  it('keeps no state for a stream without events, so its first event is never missed', async function () {
    const loader = cachingStateLoader(spy);
    const unknown = streams.watch('AUR-XX-999');
    expect(await loader.load(watchDecider, unknown)).to.deep.equal({ state: { status: 'unpublished' }, expected: 'no_stream' });
    await loader.load(watchDecider, unknown);
    expect(reads).to.deep.equal([undefined, undefined]);
  });

  it('beyond its capacity, forgets the least recently loaded stream', async function () {
    await service.publishWatch(aWatch({ reference: 'AUR-LU-002' }));
    await service.publishWatch(aWatch({ reference: 'AUR-LU-003' }));
    const loader = cachingStateLoader(spy, 2);
    for (const reference of ['AUR-LU-001', 'AUR-LU-002', 'AUR-LU-001', 'AUR-LU-003', 'AUR-LU-001', 'AUR-LU-002']) {
      await loader.load(watchDecider, streams.watch(reference));
    }
    // 002 was the least recent when 003 came in, so it is read in full again; 001 stayed warm throughout.
    expect(reads).to.deep.equal([undefined, undefined, { after: 0 }, undefined, { after: 0 }, undefined]);
  });
});
