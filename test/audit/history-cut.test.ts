import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { historyCut } from '../../services/audit/history-cut.ts';
import { randomSerial, serialRegistered } from '../fixtures/events.ts';

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

  it('a moment keeps every event that had occurred by then, whatever its position', async () => {
    const view = historyCut(store, { at: Date.parse('2025-03-01T04:30:00Z') });
    expect(await positions(view, 1)).to.deep.equal([1, 3, 4, 5]);
    expect(await positions(view, 100)).to.deep.equal([1, 3, 4, 5]);
    expect(view.lastIncluded()).to.deep.equal({ position: 5, occurredAt: '2025-03-01T04:00:00.000Z' });
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
});
