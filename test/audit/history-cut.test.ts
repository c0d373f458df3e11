import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore, type ReadAllOptions, type StoredEvent } from '../../shared/ports/event-store.ts';
import { historyCut } from '../../services/audit/history-cut.ts';
import { collectionDefined, randomSerial, serialRegistered, watchPriceChanged, watchPublished } from '../fixtures/events.ts';

describe('history cut: the history at a point, through the event store port', () => {
  let store: EventStore;
  /** Hours at which the events of positions 1.. occurred: out of order at positions 2 and 6. */
  const HOURS = [1, 9, 2, 3, 4, 8, 5];

  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    for (const hour of HOURS) {
      const serial = randomSerial();
      await store.append(`serial-${serial}`, [serialRegistered(serial, {}, { occurred_at: `2025-03-01T0${hour}:00:00.000Z` })], 'no_stream');
    }
  });
  afterEach(() => store.close());

  const positions = async (view: EventStore, limit: number) => {
    const seen: number[] = [];
    for (let after = 0; ;) {
      const batch = await view.readAll({ after, limit });
      if (batch.length === 0) return seen;
      seen.push(...batch.map((event) => event.position));
      after = batch.at(-1)!.position;
    }
  };

  it('a moment keeps the events before the first one stamped after it, not the later ones stamped before it', async () => {
    const view = historyCut(store, { at: Date.parse('2025-03-01T04:30:00Z') });
    expect(await positions(view, 1)).to.deep.equal([1]);
    expect(await positions(view, 100)).to.deep.equal([1]);
    expect(view.lastIncluded()).to.deep.equal({ position: 1, occurredAt: '2025-03-01T01:00:00.000Z' });
  });

  it('a position keeps the prefix of the history up to it, and is the head of the view', async () => {
    const view = historyCut(store, { position: 2 });
    expect(await positions(view, 1)).to.deep.equal([1, 2]);
    expect(await view.headPosition()).to.equal(2);
  });

  it('refuses appends', async () => {
    const serial = randomSerial();
    let refused: unknown;
    await historyCut(store, { position: 1 }).append(`serial-${serial}`, [serialRegistered(serial)], 'any').catch((error: unknown) => { refused = error; });
    expect(refused).to.be.instanceOf(Error);
    expect(await store.headPosition()).to.equal(HOURS.length);
  });

  it('a moment keeps an event that occurred exactly then (occurred_at <= the moment)', async () => {
    expect(await positions(historyCut(store, { at: Date.parse('2025-03-01T09:00:00.000Z') }), 100)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(await positions(historyCut(store, { at: Date.parse('2025-03-01T08:59:59.999Z') }), 100)).to.deep.equal([1]);
  });

  it('a stream read through a position cut holds only its events up to the cut', async () => {
    const all = await store.readAll({ after: 0, limit: 100 });
    const view = historyCut(store, { position: 2 });
    expect((await view.readStream(all[0]!.stream)).map((event) => event.position)).to.deep.equal([1]);
    expect(await view.readStream(all[2]!.stream)).to.deep.equal([]);
  });

  it('the last event included stays the newest handed out when an older stream is read afterwards', async () => {
    const view = historyCut(store, { at: Date.parse('2025-03-01T23:00:00Z') });
    await positions(view, 100);
    const [first] = await store.readAll({ after: 0, limit: 1 });
    await view.readStream(first!.stream);
    expect(view.lastIncluded()).to.deep.equal({ position: 7, occurredAt: '2025-03-01T05:00:00.000Z' });
  });

  it('a position cut reads nothing of the store past its position (a replay at an early position would read all the rest)', async () => {
    const reads: number[] = [];
    const spied = { ...store, readAll: async (options: ReadAllOptions) => { reads.push(options.after); return store.readAll(options); } } as EventStore;
    const view = historyCut(spied, { position: 2 });
    expect(await positions(view, 2)).to.deep.equal([1, 2]);
    expect(reads).to.deep.equal([0]);
  });

  it('hands out a feed that can be stopped, as the port says, though a fixed history never signals', () => {
    const stop = historyCut(store, { position: 1 }).onAppended(() => expect.fail('a cut history has no new events'));
    expect(stop).to.be.a('function');
    stop();
  });
});

describe('history cut: an event whose metadata cannot be read', () => {
  it('is kept by a cut by time, but the last event included is the newest with a time', async () => {
    const readable = { type: 'SerialRegistered', id: 'e1', stream: 'serial-A', revision: 0, position: 1, data: {}, metadata: { occurred_at: '2025-03-01T01:00:00.000Z' } };
    const unreadable = { type: 'FromTheFuture', id: 'e2', stream: 'serial-B', revision: 0, position: 2, metadata: null, unreadable: 'unknown event type' };
    const events = [readable, unreadable] as unknown as StoredEvent[];
    const source = { readAll: async ({ after }: ReadAllOptions) => events.filter((event) => event.position > after) } as unknown as EventStore;
    const view = historyCut(source, { at: Date.parse('2025-03-01T02:00:00Z') });
    expect((await view.readAll({ after: 0, limit: 10 })).map((event) => event.position)).to.deep.equal([1, 2]);
    expect(view.lastIncluded()).to.deep.equal({ position: 1, occurredAt: '2025-03-01T01:00:00.000Z' });
  });
});

describe('history cut: a moment across writers whose clocks differ', () => {
  /**
   * Positions 1..4 as three writers stamped them: the admin API (clock right) defines the collection at 10:00, the
   * import (clock 40 minutes slow) publishes a watch of it at 09:30, the CLI (right) reprices it at 10:30, the import
   * another at 09:50. `occurred_at` runs backwards at positions 2 and 4: only the positions say what came first.
   */
  const STAMPS = ['10:00', '09:30', '10:30', '09:50'];
  let store: EventStore;
  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    const stamp = (i: number) => ({ occurred_at: `2025-03-01T${STAMPS[i]}:00.000Z` });
    await store.append(streams.collection('regate'), [collectionDefined('regate', {}, stamp(0))], 'no_stream');
    await store.append(streams.watch('RG-1'), [watchPublished('RG-1', 'regate', {}, stamp(1))], 'no_stream');
    await store.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_250_000, 1_000_000, stamp(2))], 'any');
    await store.append(streams.watch('RG-2'), [watchPublished('RG-2', 'regate', {}, stamp(3))], 'no_stream');
  });
  afterEach(() => store.close());

  const read = async (view: EventStore) => (await view.readAll({ after: 0, limit: 100 })).map((event) => event.position);

  it('is a prefix in position order: it never keeps an event without one before it, whatever their stamps', async () => {
    // 09:45: the watch published at "09:30" came after the collection stamped 10:00, so neither is in the cut.
    expect(await read(historyCut(store, { at: Date.parse('2025-03-01T09:45:00Z') }))).to.deep.equal([]);
    // 10:15: the reprice stamped 10:30 ends it; the watch stamped 09:50 came after the reprice, so it is not in it either.
    expect(await read(historyCut(store, { at: Date.parse('2025-03-01T10:15:00Z') }))).to.deep.equal([1, 2]);
    expect(await read(historyCut(store, { at: Date.parse('2025-03-01T10:30:00Z') }))).to.deep.equal([1, 2, 3, 4]);
  });

  it('ends at the same position whatever the batch size it is read in', async () => {
    for (const limit of [1, 2, 3]) {
      const view = historyCut(store, { at: Date.parse('2025-03-01T10:15:00Z') });
      const seen: number[] = [];
      for (let after = 0; ;) {
        const batch = await view.readAll({ after, limit });
        if (batch.length === 0) break;
        seen.push(...batch.map((event) => event.position));
        after = batch.at(-1)!.position;
      }
      expect(seen, `batches of ${limit}`).to.deep.equal([1, 2]);
    }
  });

  it('finds its end before answering a read that starts past it, or a stream\'s events', async () => {
    const view = historyCut(store, { at: Date.parse('2025-03-01T10:15:00Z') });
    expect(await view.readAll({ after: 3, limit: 10 })).to.deep.equal([]);
    expect(await historyCut(store, { at: Date.parse('2025-03-01T10:15:00Z') }).readStream(streams.watch('RG-2'))).to.deep.equal([]);
    expect((await historyCut(store, { at: Date.parse('2025-03-01T10:15:00Z') }).readStream(streams.watch('RG-1'))).map((event) => event.position))
      .to.deep.equal([2]);
  });
});
