/**
 * The auditor's operations around the chain verifier (services/audit/chain-audit.ts): the summary an export prints
 * (count, first and last position, head chain hash: docs/audit.md), the progress told per event, the lines counted
 * for progress and the records read back from an export file, blank lines skipped and a malformed line named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { GENESIS_HASH } from '../../../shared/adapters/sqlite/event-hash.ts';
import type { AuditRecord } from '../../../services/audit/audit-record.ts';
import { countLines, exportHistory, readExportFile, verifyRecords } from '../../../services/audit/chain-audit.ts';
import { exportLine } from '../../../services/audit/export-format.ts';
import { hashedHistory } from './support/hashed-history.ts';

/** Three events of one stream at positions 4, 5 and 6 (a history exported from position 3 would look the same). */
const records = (): AuditRecord[] => hashedHistory([4, 5, 6].map((position, revision) => ({ position, stream: 'a', revision })));
const linked = (list: AuditRecord[]) => list.map((record) => ({ record, links: { previous_stream_hash: GENESIS_HASH, previous_chain_hash: GENESIS_HASH } }));

describe('chain audit: export summary and progress', () => {
  it('sums up an export: how many events, the first and last position, the head chain hash; one progress call per event', async () => {
    const list = records();
    const lines: string[] = [];
    const told: [number, number][] = [];
    const summary = await exportHistory(linked(list), (line) => { lines.push(line); }, (done, position) => told.push([done, position]));
    expect(summary).to.deep.equal({ count: 3, first: 4, last: 6, headChainHash: list[2]!.chain_hash.toString('hex') });
    expect(lines).to.have.length(3);
    expect(told).to.deep.equal([[1, 4], [2, 5], [3, 6]]);
  });

  it('sums up an empty export as no events and no positions or head', async () => {
    expect(await exportHistory([], () => {})).to.deep.equal({ count: 0, first: null, last: null, headChainHash: null });
  });

  it('tells progress for each event checked, and none for the broken one', async () => {
    const list = records();
    list[2] = { ...list[2]!, data: '{"edited":true}' };
    const told: [number, number][] = [];
    const outcome = await verifyRecords(list, {}, (done, position) => told.push([done, position]));
    expect(outcome.broken?.position).to.equal(6);
    expect(told).to.deep.equal([[1, 4], [2, 5]]);
  });
});

describe('chain audit: export files', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'chain-audit-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the lines of a file, over many read chunks', async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, 'x'.repeat(99).concat('\n').repeat(2_000));
    expect(await countLines(file)).to.equal(2_000);
  });

  it('reads every record of an export back, skipping blank and whitespace-only lines', async () => {
    const list = records();
    const lines = linked(list).map(({ record, links }) => exportLine(record, links));
    const file = join(dir, 'export.ndjson');
    writeFileSync(file, [lines[0], '', lines[1], '   \t', lines[2], ''].join('\n'));
    const read = [];
    for await (const record of readExportFile(file)) read.push(record);
    expect(read.map((record) => [record.position, record.chain_hash.toString('hex')])).to.deep.equal(list.map((record) => [record.position, record.chain_hash.toString('hex')]));
  });

  it('names a malformed line by its number in the file, blank lines counted', async () => {
    const [first] = linked(records()).map(({ record, links }) => exportLine(record, links));
    const file = join(dir, 'export.ndjson');
    writeFileSync(file, [first, '', 'not json', ''].join('\n'));
    const read = async () => { for await (const record of readExportFile(file)) void record; };
    let error: unknown;
    await read().catch((caught: unknown) => { error = caught; });
    expect(error).to.be.instanceOf(Error).with.property('message', 'export file line 3: not JSON');
  });
});
