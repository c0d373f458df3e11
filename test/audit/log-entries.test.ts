/**
 * The transparency log's entries are the audit export's canonical bytes (docs/api.md, "Transparency log"): an
 * auditor holding an export rebuilds every leaf from it. The expected entry is written from each export line's
 * own JSON, by JSON.stringify over the fields the contract names, not by the code under test.
 */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { entryText, readEntryTexts, type EntryFields } from '../../shared/read-model/transparency/log-entry.ts';
import { leafHash } from '../../shared/read-model/transparency/merkle.ts';
import { exportHistory } from '../../services/audit/chain-audit.ts';
import { parseExportLine } from '../../services/audit/export-format.ts';
import { sqliteLinkedRecords } from '../../services/audit/linked-history.ts';
import { openSqliteAuditHistory } from '../../services/audit/sqlite-audit-reader.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { writeKnownHistory, type TempStore } from './support/audit-history.ts';

/** An entry's bytes: the UTF-8 of its text. */
const entry = (fields: EntryFields) => Buffer.from(entryText(fields), 'utf8');

async function exportLines(file: string): Promise<string[]> {
  const history = openSqliteAuditHistory(file);
  const lines: string[] = [];
  try {
    await exportHistory(sqliteLinkedRecords(history, 0), (line) => { lines.push(line); });
  } finally {
    history.close();
  }
  return lines;
}

describe('transparency log: entries are rebuilt from an audit export', () => {
  let store: TempStore;
  let events: EventStore;

  beforeEach(async () => {
    store = await writeKnownHistory();
    // A newer version's event, with a field this version drops on reading: the entry keeps what was stored.
    appendAsNewerVersion(store.file, 'watch-RG-1', [{ type: 'WatchCertified', data: { reference: 'RG-1', by: 'COSC' }, metadata: { occurred_at: '2025-03-02T00:00:00.000Z' } }]);
    events = openSqliteEventStore(store.file);
  });
  afterEach(async () => {
    await events.close();
    rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('gives each event, in event-store order, the export line\'s stream, revision, id, type, data and metadata as JSON', async () => {
    const lines = await exportLines(store.file);
    const texts = await readEntryTexts(events, 0, 100);
    expect(texts.map((t) => t.position)).to.deep.equal(lines.map((line) => (JSON.parse(line) as { position: number }).position));
    lines.forEach((line, i) => {
      const { stream, revision, id, type, data, metadata } = JSON.parse(line) as Record<string, unknown>;
      const expected = JSON.stringify({ stream, revision, id, type, data, metadata });
      expect(entry(texts[i]!).toString('utf8'), `line ${i + 1}`).to.equal(expected);
      expect(entry(parseExportLine(line, i + 1)).equals(entry(texts[i]!)), `line ${i + 1} parsed`).to.equal(true);
    });
    expect(texts).to.have.length(13);
    expect(entry(texts[12]!).toString('utf8')).to.contain('"by":"COSC"');
  });

  it('makes the leaf hash depend on the event\'s random id, so a guessed event cannot be tested against the log', async () => {
    const [first] = await readEntryTexts(events, 0, 1);
    const guessed = { ...first!, id: '00000000-0000-4000-8000-000000000000' };
    expect(Buffer.from(leafHash(entry(guessed))).equals(Buffer.from(leafHash(entry(first!))))).to.equal(false);
  });

  it('writes stream, id and type as JSON.stringify does, whatever characters they hold', () => {
    for (const text of ['serial-SN-1', 'a"b', 'a\\b', 'line\nbreak', '\u0001', 'unit\u001fseparator', 'Régate \u2028', '\ud83d\ude00', 'lone \ud800', '']) {
      const fields = { stream: `serial-${text}`, revision: 2, id: text, type: `${text}Type`, data: '{"n":1}', metadata: '{}' };
      const expected = JSON.stringify({ ...fields, data: { n: 1 }, metadata: {} });
      expect(entryText(fields), JSON.stringify(text)).to.equal(expected);
    }
  });
});
