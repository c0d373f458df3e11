/**
 * `watchcat export` and `watchcat audit verify` as an auditor runs them (services/audit/audit.commands.ts), in process
 * so that what they print is the code's: the arguments they accept and refuse (usage errors, exit 2), the summary and
 * the final progress line on stderr, the result lines on stdout, and where the history comes from: the SQLite file
 * with its stored hashes, or a store reached through its port (EventStoreDB), which keeps no chain to verify live.
 * The known history holds positions 1 to 12 (support/audit-history.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { linkedHistory } from '../../services/audit/audit-sources.ts';
import { storedChainHash, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

const HEAD = 12;
/** An address no test reaches: the commands that take EventStoreDB either refuse before connecting or get the store handed in. */
const EVENTSTORE_URL = 'esdb://eventstore.invalid:2113?tls=false';

const positionsOf = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { position: number }).position);
/** The last progress line on stderr (audit-progress.ts): the one written when the command stops. */
const progressLine = (notes: string[], label: string) => notes.filter((line) => line.startsWith(`${label}: `) && line.includes(' events/s, ETA ')).at(-1);

describe('watchcat export and audit verify: arguments, output and sources', () => {
  let store: TempStore;
  let empty: string;
  beforeEach(async () => {
    store = await writeKnownHistory();
    empty = mkdtempSync(join(tmpdir(), 'watchcat-no-store-'));
  });
  afterEach(() => {
    rmSync(store.dataDir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });

  describe('export', () => {
    it('without --out writes the lines on stdout, and the summary, without a file, on stderr', async () => {
      const result = await watchcat(store.env, 'export', '--from', '10');
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(positionsOf(result.out)).to.deep.equal([11, 12]);
      expect(result.notes).to.include(`export: 2 events (positions 11..12); head chain hash ${storedChainHash(store.file, HEAD)}`);
    });

    it('with --out names the file in its summary, and its last progress line counts the events of the SQLite file', async () => {
      const out = join(store.dataDir, 'export.ndjson');
      const result = await watchcat(store.env, 'export', '--out', out);
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(result.out).to.deep.equal([]);
      expect(positionsOf(readFileSync(out, 'utf8').trim().split('\n'))).to.deep.equal(Array.from({ length: HEAD }, (_, i) => i + 1));
      expect(result.notes).to.include(`export: ${HEAD} events (positions 1..${HEAD}) to ${out}; head chain hash ${storedChainHash(store.file, HEAD)}`);
      expect(progressLine(result.notes, 'export')).to.match(/^export: 12\/12 events, \d+ events\/s, ETA 0 s$/);
    });

    it('from the last position says there are no events after it, and writes none', async () => {
      const result = await watchcat(store.env, 'export', '--from', String(HEAD));
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(result.out).to.deep.equal([]);
      expect(result.notes).to.include(`export: no events after position ${HEAD}`);
    });

    it('reads --from padded with spaces as that position, and refuses anything but a whole number as a usage error', async () => {
      expect(positionsOf((await watchcat(store.env, 'export', '--from', ' 10 ')).out)).to.deep.equal([11, 12]);
      for (const from of ['x5', '5x', '1.5', '']) {
        const result = await watchcat(store.env, 'export', '--from', from);
        expect(result.code, from).to.equal(2);
        expect(result.notes.join('\n'), from).to.contain('expected a position, a whole number >= 0');
        expect(result.out, from).to.deep.equal([]);
      }
    });

    it('through the port of a store that keeps no hashes (EventStoreDB), writes the lines the SQLite file gives, and counts progress in positions', async () => {
      const fromFile = await watchcat(store.env, 'export');
      const events = openSqliteEventStore(store.file);
      const out: string[] = [];
      const notes: string[] = [];
      // DATA_DIR holds no SQLite store: the history can come only through the port.
      const base = createCliContext({ DATA_DIR: empty, EVENTSTORE_URL }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
      try {
        const code = await run(['node', 'watchcat', 'export'], { ...base, store: () => Promise.resolve(events) });
        expect(code, notes.join('\n')).to.equal(0);
      } finally {
        await events.close();
      }
      expect(out).to.deep.equal(fromFile.out);
      expect(notes).to.include(`export: ${HEAD} events (positions 1..${HEAD}); head chain hash ${storedChainHash(store.file, HEAD)}`);
      expect(progressLine(notes, 'export')).to.match(/^export: position 12 of 12, 12 events, \d+ events\/s, ETA 0 s$/);
    });

    it('refuses a DATA_DIR without an event store, naming the file, and does not create it', async () => {
      const result = await watchcat({ DATA_DIR: empty }, 'export');
      expect(result.code).to.equal(1);
      expect(result.notes).to.include(`watchcat: no event store at ${join(empty, 'events.sqlite3')} (check DATA_DIR)`);
      expect(existsSync(join(empty, 'events.sqlite3'))).to.equal(false);
    });
  });

  describe('audit verify', () => {
    it('--live prints the intact chain of the live store, the advice to record its head, and counts its events in progress', async () => {
      const result = await watchcat(store.env, 'audit', 'verify', '--live');
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(result.out).to.deep.equal([
        `audit chain of the live event store intact: ${HEAD} events, head position ${HEAD}, head chain hash ${storedChainHash(store.file, HEAD)}`,
        'record the head chain hash elsewhere: `watchcat audit verify --live --expect-head HASH` then detects a removal of the newest events',
      ]);
      expect(progressLine(result.notes, 'verify')).to.match(/^verify: 12\/12 events, \d+ events\/s, ETA 0 s$/);
    });

    /** The whole history exported to a file in the store's folder, as an auditor keeps it. */
    const exportToFile = async () => {
      const file = join(store.dataDir, 'export.ndjson');
      await watchcat(store.env, 'export', '--out', file);
      return file;
    };

    it('an export FILE: counts the lines of the file in progress', async () => {
      const file = await exportToFile();
      const result = await watchcat(store.env, 'audit', 'verify', file);
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(result.out[0]).to.equal(`audit chain of ${file} intact: ${HEAD} events, head position ${HEAD}, head chain hash ${storedChainHash(store.file, HEAD)}`);
      expect(progressLine(result.notes, 'verify')).to.match(/^verify: 12\/12 events, \d+ events\/s, ETA 0 s$/);
    });

    it('an empty export FILE holds no events: said on stdout, exit 0, no progress line', async () => {
      const file = join(store.dataDir, 'empty.ndjson');
      writeFileSync(file, '');
      const result = await watchcat(store.env, 'audit', 'verify', file);
      expect(result.code, result.notes.join('\n')).to.equal(0);
      expect(result.out).to.deep.equal([`audit chain of ${file}: no events`]);
      expect(progressLine(result.notes, 'verify')).to.equal(undefined);
    });

    it('a malformed export FILE is refused as the auditor\'s file, naming its line, not reported as a failure of the tool', async () => {
      const file = await exportToFile();
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[2] = '{"position": 3, "chain_hash": 7';
      writeFileSync(file, lines.join('\n'));
      const result = await watchcat(store.env, 'audit', 'verify', file);
      expect(result.code).to.equal(1);
      expect(result.notes).to.include('watchcat: export file line 3: not JSON');
    });

    it('reads lines ended by CR LF as by LF, and refuses a line past 16 MiB or not UTF-8, naming it, without reading it whole', async () => {
      const file = await exportToFile();
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      writeFileSync(file, `${lines.join('\r\n')}\r\n`);
      const crlf = await watchcat(store.env, 'audit', 'verify', file);
      expect(crlf.code, crlf.notes.join('\n')).to.equal(0);
      writeFileSync(file, `${lines.join('\n \t\n')}`);
      const blankAndNoLastNewline = await watchcat(store.env, 'audit', 'verify', file);
      expect(blankAndNoLastNewline.code, 'blank lines (spaces alone) skipped, the last line read without its newline').to.equal(0);
      expect(blankAndNoLastNewline.out[0]).to.contain(`intact: ${HEAD} events`);
      const MAX = 16 << 20;
      for (const [size, end, says] of [[MAX, '', 'not JSON'], [MAX, '\n', 'not JSON'], [MAX + 1, '', `longer than ${MAX} bytes`], [MAX + 1, '\n', `longer than ${MAX} bytes`]] as const) {
        writeFileSync(file, `${lines[0]}\n${'x'.repeat(size)}${end}`);
        const long = await watchcat(store.env, 'audit', 'verify', file);
        expect(long.code).to.equal(1);
        expect(long.notes, `${size} bytes${end ? ' and a newline' : ''}`).to.include(`watchcat: export file line 2: ${says}`);
      }
      writeFileSync(file, Buffer.concat([Buffer.from(`${lines[0]}\n${lines[1]}\n`), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]));
      const binary = await watchcat(store.env, 'audit', 'verify', file);
      expect(binary.code).to.equal(1);
      expect(binary.notes).to.include('watchcat: export file line 3: not UTF-8');
    });

    it('refuses a line not in the export\'s own form: a key given twice (JSON keeps the last, a reader may keep the first), a key added, spacing', async () => {
      const file = await exportToFile();
      const lines = readFileSync(file, 'utf8').split('\n');
      const third = lines[2]!;
      for (const changed of [
        third.replace('"data":', '"data":{"price_cents":99},"data":'),
        third.replace('"type":', '"note":"added","type":'),
        third.replace('"position":3,', '"position": 3,'),
      ]) {
        expect(changed, 'changed').to.not.equal(third);
        writeFileSync(file, [...lines.slice(0, 2), changed, ...lines.slice(3)].join('\n'));
        const result = await watchcat(store.env, 'audit', 'verify', file);
        expect(result.code, changed).to.equal(1);
        expect(result.notes, changed).to.include('watchcat: export file line 3: not in the form an export writes (a key repeated, added or reordered, or spacing changed)');
      }
    });

    it('--expect-head names a missing recorded head after the last position checked, not as an event', async () => {
      const head = storedChainHash(store.file, HEAD);
      const db = new Database(store.file);
      db.prepare('DELETE FROM events WHERE position = ?').run(HEAD);
      db.close();
      const result = await watchcat(store.env, 'audit', 'verify', '--live', '--expect-head', head);
      expect(result.code).to.equal(1);
      expect(result.notes).to.include(`watchcat: audit chain of the live event store broken after position ${HEAD - 1}: the recorded head hash ${head} `
        + 'is not in the chain: the newest events were removed or the history was rewritten');
    });

    it('--expect-head takes the hash in upper case and padded with spaces, and refuses anything but 64 hex digits as a usage error', async () => {
      const head = storedChainHash(store.file, HEAD);
      expect((await watchcat(store.env, 'audit', 'verify', '--live', '--expect-head', ` ${head.toUpperCase()} `)).code).to.equal(0);
      for (const junk of ['abc', `zz${head}`, `${head}00`, head.slice(2)]) {
        const result = await watchcat(store.env, 'audit', 'verify', '--live', '--expect-head', junk);
        expect(result.code, junk).to.equal(2);
        expect(result.notes.join('\n'), junk).to.contain('expected a SHA-256 hash in hex (64 characters)');
      }
    });

    it('--live on EventStoreDB refuses: it keeps no hash chain, and the auditor is told to verify exports', async () => {
      const result = await watchcat({ DATA_DIR: empty, EVENTSTORE_URL }, 'audit', 'verify', '--live');
      expect(result.code).to.equal(1);
      expect(result.notes).to.include('watchcat: the EventStoreDB store keeps no hash chain to verify: export it and keep the export\'s head hash, then verify exports');
    });

    it('--live refuses a DATA_DIR without an event store, naming the file, and does not create it', async () => {
      const result = await watchcat({ DATA_DIR: empty }, 'audit', 'verify', '--live');
      expect(result.code).to.equal(1);
      expect(result.notes).to.include(`watchcat: no event store at ${join(empty, 'events.sqlite3')} (check DATA_DIR)`);
      expect(existsSync(join(empty, 'events.sqlite3'))).to.equal(false);
    });
  });

  it('the history an export reads from the SQLite file is closed with its source: nothing is read through it afterwards', async () => {
    const source = await linkedHistory(createCliContext(store.env, { out: () => {}, note: () => {} }), 0);
    source.close();
    expect(() => [...(source.records as Iterable<unknown>)]).to.throw(TypeError, 'The database connection is not open');
  });
});
