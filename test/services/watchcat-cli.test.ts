import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

interface Outcome { code: number; stdout: string; stderr: string }

/** tsx's loader by its location: a run from another folder cannot resolve it by name. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('watchcat CLI, end to end in a temporary DATA_DIR', function () {
  // Tests run the TypeScript sources (the bin runs dist/, see test/build): each run compiles them on the fly,
  // seconds each on a busy machine.
  this.timeout(120_000);
  let dir: string;

  /** The project's folder: where the tests run from (`npm test`), and where a relative DATA_DIR is read from. */
  const root = process.cwd();
  const store = () => join(dir, 'data', 'events.sqlite3');
  const storeLine = () => `watchcat: event store ${store()}\n`;

  function watchcat(...args: string[]): Promise<Outcome> {
    return watchcatWith({}, ...args);
  }

  function watchcatWith(options: { env?: Record<string, string>; cwd?: string }, ...args: string[]): Promise<Outcome> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', TSX, join(root, 'services/cli/watchcat.ts'), ...args], {
        env: { PATH: process.env.PATH, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', ...options.env },
        cwd: options.cwd ?? root,
      }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-cli-'));
    await writeFile(join(dir, 'catalogue.json'), JSON.stringify(tinyCatalogue()));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('imports a catalogue, registers, reports stolen and recovers a serial; history shows it; refusals exit non-zero', async () => {
    const imported = await watchcat('import', join(dir, 'catalogue.json'));
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.stdout).to.match(/10 commands, 12 events appended/);
    // Progress of both passes, one line a phase off a terminal: the whole file rehearsed, then imported.
    expect(imported.stderr.split('\n').filter((line) => /^(checking|importing) /.test(line)).map((line) => line.replace(/ \(.*/, ''))).to.deep.equal([
      'checking collections', 'checking watches', 'checking configurators', 'checking serials',
      'importing collections', 'importing watches', 'importing configurators', 'importing serials',
    ]);

    for (const args of [
      ['serial', 'register', 'aur-2024-7777', '--reference', 'aur-lu-001', '--year', '2024'],
      ['serial', 'report-stolen', 'AUR-2024-7777'],
      ['serial', 'recover', 'aur-2024-7777'],
    ]) {
      const outcome = await watchcat(...args);
      expect(outcome.code, `${args.join(' ')}: ${outcome.stderr}`).to.equal(0);
    }

    // These write nothing, so they may run side by side.
    const [history, again, unknownSerial, unknownWatch, badYear, freePrice] = await Promise.all([
      watchcat('history', 'serial-AUR-2024-7777', '--json'),
      watchcat('serial', 'register', 'AUR-2024-7777', '--reference', 'AUR-LU-001', '--year', '2024'),
      watchcat('serial', 'report-stolen', 'AUR-0000-0000'),
      watchcat('watch', 'set-price', 'FOO-1', '12500'),
      watchcat('serial', 'register', 'AUR-2024-8888', '--reference', 'AUR-LU-001', '--year', 'last'),
      watchcat('watch', 'set-price', 'AUR-LU-001', '0'),
    ]);

    expect(history.code, history.stderr).to.equal(0);
    const events = history.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; revision: number; data: object });
    expect(events.map((e) => e.type)).to.deep.equal(['SerialRegistered', 'SerialReportedStolen', 'SerialRecovered']);
    expect(events[0]?.data).to.deep.include({ serial: 'AUR-2024-7777', reference: 'AUR-LU-001', manufacture_year: 2024 });

    expect(again).to.deep.equal({ code: 1, stdout: '', stderr: `${storeLine()}watchcat: serial AUR-2024-7777 is already registered\n` });
    expect(unknownSerial).to.deep.equal({ code: 1, stdout: '', stderr: `${storeLine()}watchcat: unknown serial AUR-0000-0000\n` });
    expect(unknownWatch).to.deep.equal({ code: 1, stdout: '', stderr: `${storeLine()}watchcat: unknown watch FOO-1\n` });
    expect(badYear.code).to.equal(2);
    expect(badYear.stderr).to.match(/^error: .*expected a four-digit year/);
    // A price is typed in euros: refused in euros, never in the cents the domain counts in.
    expect(freePrice.code).to.equal(2);
    expect(freePrice.stderr).to.match(/^error: .*expected a price in euros above 0/);
    expect(freePrice.stderr).not.to.include('cents');
  });

  it('export: stdout that cannot take the lines (a full disk) fails it, naming how far it got, with no head hash', async () => {
    const data = join(dir, 'export-data');
    const env = { env: { DATA_DIR: data } };
    expect((await watchcatWith(env, 'import', join(dir, 'catalogue.json'))).code).to.equal(0);
    const full = await new Promise<Outcome>((resolve) => {
      execFile('bash', ['-c', `"${process.execPath}" --import "${TSX}" services/cli/watchcat.ts export > /dev/full`], {
        env: { PATH: process.env.PATH, DATA_DIR: data, LOG_LEVEL: 'silent' }, cwd: root,
      }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    });
    expect(full.code, full.stderr).to.equal(1);
    expect(full.stderr).to.contain('watchcat: export stopped after 0 events (position 0): stdout: ENOSPC');
    expect(full.stderr).not.to.contain('head chain hash');
  });

  it('reads a relative DATA_DIR from the project root wherever it runs, and names the store every command used', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'watchcat-elsewhere-'));
    // Deeper than the project root, so that the relative path below means another folder from here.
    const elsewhere = join(scratch, 'a', 'b', 'c');
    await mkdir(elsewhere, { recursive: true });
    try {
      // Relative to the project root, this is the store the first test filled; relative to `elsewhere`, nothing.
      const fromRoot = relative(root, join(dir, 'data'));
      const history = await watchcatWith({ env: { DATA_DIR: fromRoot }, cwd: elsewhere }, 'history', 'serial-AUR-2024-7777', '--json');
      expect(history.code, history.stderr).to.equal(0);
      expect(history.stderr).to.equal(storeLine());
      expect(history.stdout.trim().split('\n')).to.have.length(3);
      const priced = await watchcatWith({ env: { DATA_DIR: fromRoot }, cwd: elsewhere }, 'watch', 'set-price', 'AUR-LU-001', '13000');
      expect(priced.code, priced.stderr).to.equal(0);
      expect(priced.stderr).to.equal(storeLine());
      expect(existsSync(join(elsewhere, fromRoot))).to.equal(false);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('never creates a store for a command that only reads: it says there is none and exits 1', async () => {
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const auditKey = 'aud-key-7c1e9b3d5f2a4680b9d1c3e5f7a2b4d6:audit';
    for (const args of [['history'], ['state-at', '1'], ['audit', 'projections']]) {
      const outcome = await watchcatWith({ env: { DATA_DIR: empty, ADMIN_API_KEYS: auditKey } }, ...args);
      expect(outcome.code, args.join(' ')).to.equal(1);
      expect(outcome.stderr, args.join(' ')).to.equal(`watchcat: no event store at ${join(empty, 'events.sqlite3')} (check DATA_DIR, read from the project root)\n`);
    }
    expect(existsSync(join(empty, 'events.sqlite3'))).to.equal(false);
  });

  it('names as actor the --actor flag, else WATCHCAT_ACTOR, else the OS user, even without $USER', async () => {
    const stock = (status: string, options: { env?: Record<string, string> }, ...flags: string[]) =>
      watchcatWith(options, ...flags, 'watch', 'set-stock', 'AUR-LU-001', status);
    for (const [status, options, flags, actor] of [
      ['low_stock', { env: { WATCHCAT_ACTOR: 'alice' } }, ['--actor', 'bob'], 'bob'],
      ['out_of_stock', { env: { WATCHCAT_ACTOR: 'alice' } }, [], 'alice'],
      ['in_stock', {}, [], userInfo().username],
    ] as const) {
      const outcome = await stock(status, options, ...flags);
      expect(outcome.code, outcome.stderr).to.equal(0);
      const history = await watchcat('history', 'watch-AUR-LU-001', '--json');
      const last = JSON.parse(history.stdout.trim().split('\n').at(-1)!) as { data: { stock_status: string }; metadata: { actor: string } };
      expect(last.data.stock_status).to.equal(status);
      expect(last.metadata.actor).to.equal(`watchcat-cli:${actor}`);
    }
  });
});
