import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { streams, type EventStore } from '../../shared/ports/event-store.ts';
import { formatMark, historyMark, holdsMark, parseMark } from '../../services/audit/history-mark.ts';
import { watchPriceChanged } from '../fixtures/events.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';

/**
 * `store` as EventStoreDB's client takes a read: from a position of 0 or more only (the port reads "after" a position,
 * 0 being the head of an empty store, shared/ports/event-store.ts); the client encodes positions as unsigned 64-bit
 * integers and throws on a negative one before anything is sent (seen by hand: a read request at commit position -1
 * fails to serialise).
 */
function readsFromZero(store: EventStore): EventStore {
  return Object.assign(Object.create(store) as EventStore, {
    readAll: (options: { after: number; limit: number }) => {
      if (options.after < 0) return Promise.reject(new TypeError(`a read after position ${options.after}`));
      return store.readAll(options);
    },
  });
}

describe('history mark: does a store hold the history another one names?', () => {
  const temps: TempStore[] = [];
  const opened: EventStore[] = [];
  async function knownStore(): Promise<EventStore> {
    const temp = await writeKnownHistory();
    temps.push(temp);
    const store = openSqliteEventStore(temp.file);
    opened.push(store);
    return store;
  }
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const temp of temps.splice(0)) rmSync(temp.dataDir, { recursive: true, force: true });
  });

  it('names the newest event of the store: position 12 of the known history, with its id', async () => {
    const store = await knownStore();
    const newest = (await store.readAll({ after: 0, limit: 100 })).at(-1)!;
    expect(await historyMark(store)).to.deep.equal({ position: 12, id: newest.id });
  });

  it('has no mark for an empty store, and reads nothing before position 0 to say so (EventStoreDB cannot be asked)', async () => {
    const temp = await writeKnownHistory();
    temps.push(temp);
    const empty = openSqliteEventStore(`${temp.dataDir}/empty.sqlite3`);
    opened.push(empty);
    expect(await historyMark(readsFromZero(empty))).to.equal(undefined);
  });

  it('is held by the same store, and still after the history has grown', async () => {
    const store = await knownStore();
    const mark = (await historyMark(store))!;
    expect(await holdsMark(store, mark)).to.equal(true);
    await store.append(streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_300_000, 1_250_000)], 'any');
    expect(await holdsMark(store, mark)).to.equal(true);
  });

  it('is not held by a store of another history of the same shape, nor by a shorter one', async () => {
    const ours = await knownStore();
    const theirs = await knownStore();
    const mark = (await historyMark(ours))!;
    expect(await holdsMark(theirs, mark)).to.equal(false);
    expect(await holdsMark(theirs, { position: 13, id: mark.id })).to.equal(false);
  });

  it('at position 0 is held by no store, which is not read before position 0 to say so (EventStoreDB cannot be asked)', async () => {
    const store = await knownStore();
    const { id } = (await historyMark(store))!;
    expect(await holdsMark(readsFromZero(store), { position: 0, id })).to.equal(false);
  });

  it('travels as POSITION:ID and refuses anything else', () => {
    const mark = { position: 2413, id: '0b6f3f5e-9d1c-4c4e-8a53-3f1f3c1d2e4f' };
    expect(formatMark(mark)).to.equal('2413:0b6f3f5e-9d1c-4c4e-8a53-3f1f3c1d2e4f');
    expect(parseMark(formatMark(mark))).to.deep.equal(mark);
    // 17 digits: a position cut to its last 16 would name another event.
    for (const junk of ['', '2413', ':abc', 'x:abc', 'x12:abc', ' 12:abc', '12345678901234567:abc', '12:', '12:a b']) {
      expect(parseMark(junk), junk).to.equal(undefined);
    }
  });
});
