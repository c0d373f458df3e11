/**
 * The projection lag behind the event store: the age of the oldest unapplied event on every engine, and the
 * number of unapplied events only where the store counts them (not from positions, which on EventStoreDB are
 * log offsets).
 */
import { expect } from 'chai';
import { projectionLag } from '../../shared/metrics/projection-lag.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import { randomSerial, serialRegistered, serialReportedStolen } from '../fixtures/events.ts';

const OCCURRED = Date.parse('2025-01-15T10:00:00.000Z');

describe('projection lag', () => {
  let store: EventStore;
  let head: number;
  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    const serial = randomSerial();
    await store.append(streams.serial(serial), [serialRegistered(serial)], 'no_stream');
    head = (await store.append(streams.serial(serial), [serialReportedStolen(serial, { occurred_at: '2025-01-15T10:00:30.000Z' })], 0)).position;
  });
  afterEach(() => store.close());

  it('counts the unapplied events and ages the oldest of them, where the store counts events', async () => {
    const lag = projectionLag(store, () => OCCURRED + 60_000);
    expect(await lag(0)).to.deep.equal({ events: 2, seconds: 60 });
    expect(await lag(1)).to.deep.equal({ events: 1, seconds: 30 });
    expect(await lag(head)).to.deep.equal({ events: 0, seconds: 0 });
  });

  it('gives the age alone for a store without a count (EventStoreDB), whatever the positions say', async () => {
    const uncounted: EventStore = {
      append: (...args) => store.append(...args), readStream: (...args) => store.readStream(...args),
      readAll: (options) => store.readAll(options), headPosition: () => store.headPosition(),
      onAppended: (listener) => store.onAppended(listener), close: () => store.close(),
    };
    const lag = projectionLag(uncounted, () => OCCURRED + 60_000);
    expect(await lag(0)).to.deep.equal({ seconds: 60 });
    expect(await lag(head)).to.deep.equal({ seconds: 0 });
  });
});
