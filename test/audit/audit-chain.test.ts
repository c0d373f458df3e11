import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { recomputedLinkedRecords, sqliteLinkedRecords, type LinkedRecord } from '../../services/audit/linked-history.ts';
import { openSqliteAuditHistory } from '../../services/audit/sqlite-audit-reader.ts';
import { storedChainHash, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

function sql(file: string, statement: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

/** Position of the newest event of the known history. */
const HEAD = 12;

const brokenLine = (notes: string[]) => notes.find((line) => line.includes('broken')) ?? '';

describe('audit trail: hash chain verification and export', () => {
  let store: TempStore;

  beforeEach(async () => {
    store = await writeKnownHistory();
  });
  afterEach(() => rmSync(store.dataDir, { recursive: true, force: true }));

  it('audit verify --live passes on an untouched history and prints the stored head chain hash', async () => {
    const result = await watchcat(store.env, 'audit', 'verify', '--live');
    expect(result.code).to.equal(0);
    expect(result.out[0]).to.contain(`intact: ${HEAD} events, head position ${HEAD}`);
    expect(result.out[0]).to.contain(storedChainHash(store.file, HEAD));
  });

  it('audit verify --live names an event whose data was edited in the SQLite file, and exits 1', async () => {
    sql(store.file, 'UPDATE events SET data = ? WHERE position = 4', JSON.stringify({ reference: 'RG-1', price_cents: 1, previous_price_cents: 1_000_000 }));
    const result = await watchcat(store.env, 'audit', 'verify', '--live');
    expect(result.code).to.equal(1);
    expect(brokenLine(result.notes)).to.match(/at position 4 \(stream watch-RG-1, revision 1\): .*edited/);
  });

  it('audit verify --live detects the removal of a stream\'s last event through the global chain', async () => {
    sql(store.file, 'DELETE FROM events WHERE position = 4');
    const result = await watchcat(store.env, 'audit', 'verify', '--live');
    expect(result.code).to.equal(1);
    expect(brokenLine(result.notes)).to.match(/at position 5 \(stream serial-SN-0001, revision 0\): .*positions jump from 3.*removed/);
  });

  it('audit verify --live detects a removed middle revision of a stream', async () => {
    sql(store.file, 'DELETE FROM events WHERE position = 6');
    const result = await watchcat(store.env, 'audit', 'verify', '--live');
    expect(result.code).to.equal(1);
    expect(brokenLine(result.notes)).to.match(/at position 7 .*positions jump from 5/);
  });

  it('cutting off the newest event passes alone but fails against the head hash recorded before', async () => {
    const head = storedChainHash(store.file, HEAD);
    sql(store.file, 'DELETE FROM events WHERE position = ?', HEAD);
    expect((await watchcat(store.env, 'audit', 'verify', '--live')).code).to.equal(0);
    const result = await watchcat(store.env, 'audit', 'verify', '--live', '--expect-head', head);
    expect(result.code).to.equal(1);
    expect(brokenLine(result.notes)).to.contain(`recorded head hash ${head} is not in the chain`);
  });

  it('export then audit verify FILE passes on an untouched history, with both hashes on every line', async () => {
    const out = join(store.dataDir, 'export.ndjson');
    const exported = await watchcat(store.env, 'export', '--out', out);
    expect(exported.code).to.equal(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line['position'])).to.deep.equal(Array.from({ length: HEAD }, (_, i) => i + 1));
    expect(Object.keys(lines[3]!)).to.include.members(['position', 'stream', 'revision', 'id', 'type', 'data', 'metadata', 'stream_hash', 'chain_hash']);
    expect(lines.at(-1)!['chain_hash']).to.equal(storedChainHash(store.file, HEAD));
    const verified = await watchcat(store.env, 'audit', 'verify', out);
    expect(verified.code).to.equal(0);
    expect(verified.out[0]).to.contain(`intact: ${HEAD} events`);
  });

  it('an export from a position verifies on its own, anchored on the previous chain hash', async () => {
    const out = join(store.dataDir, 'tail.ndjson');
    expect((await watchcat(store.env, 'export', '--from', '5', '--out', out)).code).to.equal(0);
    const verified = await watchcat(store.env, 'audit', 'verify', out);
    expect(verified.code).to.equal(0);
    expect(verified.out[0]).to.contain(`intact: ${HEAD - 5} events, head position ${HEAD}`);
    expect(verified.notes.join('\n')).to.contain(`anchored on previous chain hash ${storedChainHash(store.file, 5)}`);
  });

  describe('a tampered export file', () => {
    let lines: string[];
    let file: string;
    beforeEach(async () => {
      file = join(store.dataDir, 'export.ndjson');
      await watchcat(store.env, 'export', '--out', file);
      lines = readFileSync(file, 'utf8').trim().split('\n');
    });
    const verifyWith = async (changed: string[]) => {
      writeFileSync(file, `${changed.join('\n')}\n`);
      return watchcat(store.env, 'audit', 'verify', file);
    };

    it('names an edited line', async () => {
      const edited = JSON.parse(lines[2]!) as { data: { price_cents: number } };
      edited.data.price_cents = 1;
      const result = await verifyWith([...lines.slice(0, 2), JSON.stringify(edited), ...lines.slice(3)]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(/at position 3 \(stream watch-RG-2, revision 0\): .*edited/);
    });

    it('names the first of two swapped lines as moved', async () => {
      const result = await verifyWith([lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(/at position 3 \(stream watch-RG-2, revision 0\): .*does not follow from the previous event at position 1.*moved/);
    });

    it('names the event after a removed line, the last of its stream', async () => {
      const result = await verifyWith([...lines.slice(0, 6), ...lines.slice(7)]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(/at position 8 \(stream watch-RG-2, revision 2\): .*positions jump from 6.*removed/);
    });

    it('names a stream revision missing from the middle of its stream', async () => {
      const result = await verifyWith([...lines.slice(0, 5), ...lines.slice(6)]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(/at position 7 .*positions jump from 5/);
    });

    it('names the last event of a stream given another stream\'s name: from the first event, every stream starts at revision 0', async () => {
      const last = lines.length - 1;
      const moved = JSON.parse(lines[last]!) as { stream: string; revision: number; position: number };
      expect(moved.revision, 'the history\'s last event continues its stream').to.be.above(0);
      const result = await verifyWith([...lines.slice(0, last), JSON.stringify({ ...moved, stream: 'serial-SOMEONE-ELSE' })]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(new RegExp(`at position ${moved.position} \\(stream serial-SOMEONE-ELSE, revision ${moved.revision}\\): revision ${moved.revision} is the first of its stream`));
    });

    it('names a line copied in again as inserted', async () => {
      const result = await verifyWith([...lines, lines[7]!]);
      expect(result.code).to.equal(1);
      expect(brokenLine(result.notes)).to.match(/position 8 comes after position 12: .*inserted/);
    });
  });

  it('hashes computed through the event store port equal the hashes the SQLite store stored', async () => {
    const history = openSqliteAuditHistory(store.file);
    const eventStore = openSqliteEventStore(store.file);
    try {
      const stored = [...sqliteLinkedRecords(history, 2)];
      const computed: LinkedRecord[] = [];
      for await (const linked of recomputedLinkedRecords(eventStore, 2)) computed.push(linked);
      expect(computed.map((l) => l.record.position)).to.deep.equal(Array.from({ length: HEAD - 2 }, (_, i) => i + 3));
      expect(computed).to.deep.equal(stored.map((l) => ({ ...l, record: { ...l.record } })));
    } finally {
      history.close();
      await eventStore.close();
    }
  });

  it('audit verify refuses to run without a FILE or --live', async () => {
    const result = await watchcat(store.env, 'audit', 'verify');
    expect(result.code).to.equal(1);
    expect(result.notes.join('\n')).to.contain('give either an export FILE or --live');
  });
});
