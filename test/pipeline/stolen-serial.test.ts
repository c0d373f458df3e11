/**
 * docs/api.md, "GET /api/public/verify/{serial}", and README.md, "Back-office tools": a serial reported stolen answers
 * STOLEN until it is recovered, and `watchcat serial register` of a serial already registered fails with a clear
 * message. Together: a stolen watch cannot be laundered by registering its serial again, and a rebuild of the read
 * models from the history still says STOLEN. The projection writes `authentic` for every registration, so the
 * decider's refusal is what keeps this answer; this test holds it end to end.
 */
import { expect } from 'chai';
import { Command } from 'commander';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { registerRebuildCommand } from '../../services/cli/rebuild.commands.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { send } from '../support/http.ts';

const SERIAL = 'LAUNDER-2024-0001';
// A demo watch (services/demo), published at first start.
const REFERENCE = 'AUR-SP-001';

describe('a stolen serial registered again, through the CLI and the public API', function () {
  // Each CLI run starts a Node process that compiles TypeScript on the fly: seconds each on a busy machine.
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat | undefined;
  let api: string;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-stolen-'));
    service = await startWatchcat(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000' }),
      createLogger('silent', 'stolen-serial-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The sources, as test/services/watchcat-cli.test.ts runs them, so the test checks this tree and not dist/.
  function watchcat(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'services/cli/watchcat.ts', ...args], {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
    });
  }

  /** Waits for the verification to give `status` (projection follows the CLI's appends; a 503 means not fresh yet). */
  async function verifiedAs(status: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 20_000;
    let last = '';
    while (Date.now() < deadline) {
      const answer = await send(api, `/api/public/verify/${SERIAL.toLowerCase()}`);
      last = `${answer.status} ${answer.text}`;
      if (answer.status === 200 && answer.json().verification_status === status) return answer.json();
      await sleep(25);
    }
    throw new Error(`verification never answered ${status}; last answer: ${last}`);
  }

  it('answers STOLEN after a refused second registration, and again after a rebuild of the serials read model', async () => {
    const registered = await watchcat('serial', 'register', SERIAL, '--reference', REFERENCE, '--year', '2024');
    expect(registered.code, registered.stderr).to.equal(0);
    expect(await verifiedAs('AUTHENTIC')).to.include({ serial: SERIAL, stolen: false });

    const reported = await watchcat('serial', 'report-stolen', SERIAL);
    expect(reported.code, reported.stderr).to.equal(0);
    await verifiedAs('STOLEN');

    const again = await watchcat('serial', 'register', SERIAL, '--reference', REFERENCE, '--year', '2024');
    // Its one line of refusal, after the line naming the store it opened.
    expect({ code: again.code, stdout: again.stdout }).to.deep.equal({ code: 1, stdout: '' });
    expect(again.stderr.trimEnd().split('\n').at(-1)).to.equal(`watchcat: serial ${SERIAL} is already registered`);
    const history = await watchcat('history', `serial-${SERIAL}`, '--json');
    expect(history.code, history.stderr).to.equal(0);
    expect(history.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type))
      .to.deep.equal(['SerialRegistered', 'SerialReportedStolen']);

    // `watchcat rebuild --projection serials` on the read store the service serves (the command refuses an
    // in-memory store of its own, so it is handed this one), from the same event store file the CLI wrote.
    const eventStore = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    const out: string[] = [];
    try {
      const program = new Command('watchcat').exitOverride();
      const readStore = service!.readStore;
      registerRebuildCommand(program, {
        config: () => loadConfig({ DATA_DIR: dataDir }), store: async () => eventStore, out: (line) => out.push(line),
        progressStream: new Writable({ write(_chunk, _encoding, done) { done(); } }),
        openReadStore: async () => ({ ...readStore, close: async () => {} }),
      });
      await program.parseAsync(['node', 'watchcat', 'rebuild', '--projection', 'serials']);
    } finally {
      await eventStore.close();
    }
    expect(out).to.have.length(1);
    expect(out[0]).to.match(/^rebuilt serials up to position \d+/);

    const verified = await verifiedAs('STOLEN');
    expect(verified).to.include({ serial: SERIAL, stolen: true });
    expect(verified.details).to.include({ reference: REFERENCE, manufacture_year: 2024 });
  });
});
