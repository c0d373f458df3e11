import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

interface Outcome { code: number; stdout: string; stderr: string }

describe('watchcat CLI, end to end in a temporary DATA_DIR', function () {
  // Tests run the TypeScript sources (the bin runs dist/, see test/build): each run compiles them on the fly,
  // seconds each on a busy machine.
  this.timeout(120_000);
  let dir: string;

  function watchcat(...args: string[]): Promise<Outcome> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'services/cli/watchcat.ts', ...args], {
        env: { PATH: process.env.PATH, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' },
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
    expect(imported.stderr).to.match(/importing serials/);

    for (const args of [
      ['serial', 'register', 'aur-2024-7777', '--reference', 'aur-lu-001', '--year', '2024'],
      ['serial', 'report-stolen', 'AUR-2024-7777'],
      ['serial', 'recover', 'aur-2024-7777'],
    ]) {
      const outcome = await watchcat(...args);
      expect(outcome.code, `${args.join(' ')}: ${outcome.stderr}`).to.equal(0);
    }

    // These write nothing, so they may run side by side.
    const [history, again, unknownSerial, unknownWatch, badYear] = await Promise.all([
      watchcat('history', 'serial-AUR-2024-7777', '--json'),
      watchcat('serial', 'register', 'AUR-2024-7777', '--reference', 'AUR-LU-001', '--year', '2024'),
      watchcat('serial', 'report-stolen', 'AUR-0000-0000'),
      watchcat('watch', 'set-price', 'FOO-1', '12500'),
      watchcat('serial', 'register', 'AUR-2024-8888', '--reference', 'AUR-LU-001', '--year', 'last'),
    ]);

    expect(history.code, history.stderr).to.equal(0);
    const events = history.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; revision: number; data: object });
    expect(events.map((e) => e.type)).to.deep.equal(['SerialRegistered', 'SerialReportedStolen', 'SerialRecovered']);
    expect(events[0]?.data).to.deep.include({ serial: 'AUR-2024-7777', reference: 'AUR-LU-001', manufacture_year: 2024 });

    expect(again).to.deep.equal({ code: 1, stdout: '', stderr: 'watchcat: serial AUR-2024-7777 is already registered\n' });
    expect(unknownSerial).to.deep.equal({ code: 1, stdout: '', stderr: 'watchcat: unknown serial AUR-0000-0000\n' });
    expect(unknownWatch).to.deep.equal({ code: 1, stdout: '', stderr: 'watchcat: unknown watch FOO-1\n' });
    expect(badYear.code).to.equal(2);
    expect(badYear.stderr).to.match(/^error: .*expected a four-digit year/);
  });
});
