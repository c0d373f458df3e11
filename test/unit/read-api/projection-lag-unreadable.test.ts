/**
 * The lag of a projection stopped before an event whose metadata this version cannot read: the event is counted,
 * but it says nowhere when it occurred, so no age is given rather than a false one (0 would read as "caught up").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { projectionLag } from '../../../shared/metrics/projection-lag.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { streams } from '../../../shared/ports/event-store.ts';
import { randomSerial, serialRegistered, serialReportedStolen } from '../../fixtures/events.ts';

describe('projection lag before an event whose metadata does not decode', () => {
  it('counts the event and gives no age', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchcat-lag-'));
    const file = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(file);
    try {
      const serial = randomSerial();
      const stolen = serialReportedStolen(serial);
      const { position } = await store.append(streams.serial(serial), [serialRegistered(serial), stolen], 'no_stream');
      const db = new Database(file);
      db.prepare('UPDATE events SET metadata = ? WHERE id = ?').run('{}', stolen.id);
      db.close();
      expect(await projectionLag(store, () => Date.parse('2025-01-15T10:01:00.000Z'))(position - 1)).to.deep.equal({ events: 1 });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
