/**
 * What an export is made of (services/audit/linked-history.ts, sqlite-audit-reader.ts): the rows of the SQLite file
 * read straight, and the same history re-hashed through the event store port, which reads it in batches of 1,000.
 * Both must hand out every event once, in order, with the hashes the store wrote when it appended them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { recomputedLinkedRecords, sqliteLinkedRecords, type LinkedRecord } from '../../services/audit/linked-history.ts';
import { openSqliteAuditHistory } from '../../services/audit/sqlite-audit-reader.ts';
import { randomSerial, serialRegistered } from '../fixtures/events.ts';

describe('linked history of a SQLite file', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'linked-history-'));
    file = join(dir, 'events.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** `streams` streams of `each` events, appended one stream after the other. */
  async function write(streams: number, each: number): Promise<void> {
    const store = openSqliteEventStore(file);
    try {
      for (let s = 0; s < streams; s += 1) {
        const serial = randomSerial();
        await store.append(`serial-${serial}`, Array.from({ length: each }, () => serialRegistered(serial)), 'no_stream');
      }
    } finally {
      await store.close();
    }
  }

  it('re-hashed through the port, a history longer than one batch comes out whole, once, with the stored hashes', async () => {
    await write(3, 700);
    const history = openSqliteAuditHistory(file);
    const eventStore = openSqliteEventStore(file);
    try {
      const stored = [...sqliteLinkedRecords(history, 0)];
      const computed: LinkedRecord[] = [];
      for await (const linked of recomputedLinkedRecords(eventStore, 0)) computed.push(linked);
      expect(computed.map((l) => l.record.position)).to.deep.equal(Array.from({ length: 2_100 }, (_, i) => i + 1));
      expect(computed).to.deep.equal(stored.map((l) => ({ ...l, record: { ...l.record } })));
    } finally {
      history.close();
      await eventStore.close();
    }
  });

  it('counts the events after a position, and reads nothing once closed', async () => {
    await write(2, 3);
    const history = openSqliteAuditHistory(file);
    expect(history.count(0)).to.equal(6);
    expect(history.count(4)).to.equal(2);
    history.close();
    expect(() => [...history.records(0)]).to.throw();
  });

  it('refuses a file that does not exist, and does not create it', () => {
    const missing = join(dir, 'typo.db');
    expect(() => openSqliteAuditHistory(missing)).to.throw();
    expect(existsSync(missing)).to.equal(false);
  });
});
