/**
 * Auditors meeting events this version cannot read (a newer writer's): `watchcat history` lists them with what
 * does not decode, time windows keep one whose metadata does not decode (it cannot be ruled out), a replay of the
 * past (`state-at`) skips a new type and names an undecodable event it must apply, an export that would hash
 * re-serialised data names the event it cannot hash, and an export of the stored texts names one that is not JSON. The known history holds positions 1 to 12 (audit-history.ts).
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { recomputedLinkedRecords } from '../../services/audit/linked-history.ts';
import { eventMetadata } from '../fixtures/events.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { hour, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

const newer = (n: number) => ({ ...eventMetadata({ occurred_at: hour(n), correlation_id: `corr-${n}` }), schema_version: 2, tenant: 'aurore' });
const RECOVERY_PROBLEM = "data must have required property 'serial'";

describe('audits of a history holding events this version cannot read', () => {
  let store: TempStore;
  before(async () => {
    store = await writeKnownHistory();
    // 13: a price change with a new field; 14: a new type; 15: a recovery of a changed shape; 16: a theft report whose
    // metadata is not JSON.
    appendAsNewerVersion(store.file, 'watch-RG-1', [
      { type: 'WatchPriceChanged', data: { reference: 'RG-1', price_cents: 1_300_000, previous_price_cents: 1_250_000, reason: 'review' }, metadata: newer(10) },
      { type: 'WatchCertified', data: { reference: 'RG-1', certificate: 'COSC' }, metadata: newer(11) },
    ]);
    appendAsNewerVersion(store.file, 'serial-SN-0001', [{ type: 'SerialRecovered', data: { serial_number: 'SN-0001' }, metadata: newer(12) }]);
    appendAsNewerVersion(store.file, 'serial-SN-0001', [{ type: 'SerialReportedStolen', data: { serial: 'SN-0001' }, metadata: newer(13) }]);
    const db = new Database(store.file);
    db.prepare('UPDATE events SET metadata = ? WHERE position = 16').run('{"occurred_at": ');
    db.close();
  });
  after(() => rmSync(store.dataDir, { recursive: true, force: true }));

  it('history lists every event, each unreadable one with what does not decode instead of its data', async () => {
    const result = await watchcat(store.env, 'history', '--json', '--since', hour(10));
    expect(result.code, result.notes.join('\n')).to.equal(0);
    const lines = result.out.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ position, type, data, unreadable }) => ({ position, type, data, unreadable }))).to.deep.equal([
      { position: 13, type: 'WatchPriceChanged', data: { reference: 'RG-1', price_cents: 1_300_000, previous_price_cents: 1_250_000 }, unreadable: undefined },
      { position: 14, type: 'WatchCertified', data: undefined, unreadable: 'unknown event type' },
      { position: 15, type: 'SerialRecovered', data: undefined, unreadable: RECOVERY_PROBLEM },
      { position: 16, type: 'SerialReportedStolen', data: undefined, unreadable: 'metadata is not JSON' },
    ]);
    expect(lines[3]!['metadata']).to.equal(null);
    const table = await watchcat(store.env, 'history', 'serial-SN-0001');
    expect(table.out.at(-1)).to.match(/^16 +\? +serial-SN-0001 +3 +SerialReportedStolen +\? +\? +UNREADABLE: metadata is not JSON$/);
  });

  it('a time window keeps an event whose metadata does not decode, and filters the others by their time', async () => {
    const result = await watchcat(store.env, 'history', '--json', '--until', hour(10));
    expect(result.out.map((line) => (JSON.parse(line) as { position: number }).position)).to.deep.equal([...Array.from({ length: 13 }, (_, i) => i + 1), 16]);
  });

  it('state-at skips a new type and names the undecodable event a projection must apply', async () => {
    const before = await watchcat(store.env, 'state-at', '14', '--what', 'catalogue');
    expect(before.code, before.notes.join('\n')).to.equal(0);
    const watches = (JSON.parse(before.out.join('\n')) as { catalogue: { watches: { reference: string; price_eur: number }[] }[] }).catalogue[0]!.watches;
    expect(watches.map(({ reference, price_eur }) => ({ reference, price_eur }))).to.deep.equal([{ reference: 'RG-1', price_eur: 13_000 }]);
    const after = await watchcat(store.env, 'state-at', '15');
    expect(after.code).to.equal(1);
    expect(after.notes.join('\n')).to.include(`projection serials cannot apply SerialRecovered at position 15: this version cannot read it: ${RECOVERY_PROBLEM}`);
  });

  it('an export of the stored texts stops at the event whose stored metadata is not JSON, naming it', async () => {
    const result = await watchcat(store.env, 'export');
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.include('cannot export SerialReportedStolen at position 16 (serial-SN-0001 revision 3): its stored metadata is not JSON');
  });

  it('an export hashing re-serialised data names the event it cannot hash', async () => {
    const events = openSqliteEventStore(store.file);
    try {
      const read = async () => {
        for await (const _ of recomputedLinkedRecords(events, 0)) { /* read through */ }
      };
      const error = await read().then(() => undefined, (thrown: unknown) => thrown);
      expect((error as Error).message).to.equal('cannot export WatchCertified at position 14 (watch-RG-1 revision 3): this version cannot read it: unknown event type');
    } finally {
      await events.close();
    }
  });
});
