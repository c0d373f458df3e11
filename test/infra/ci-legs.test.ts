/**
 * Under CI=true the suite cannot go green by skipping (issue 23, item 2): a leg CI promises (MongoDB, Redis, the
 * browser, the build) that cannot run fails the run and says why; only the EventStoreDB leg skips, and the run's
 * last lines say so beside the count of each leg. The real test files run in a child mocha with what they need
 * taken away (no MONGODB_URL, no chromium, no EVENTSTORE_URL); the same files without CI=true skip, saying why.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestRedis } from '../support/redis-server.ts';
import { rejectionOf } from '../support/rejection.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FILES = ['test/contract/mongodb-read-store.test.ts', 'test/browser/docs-page.test.ts', 'test/contract/eventstoredb-event-store.test.ts'];
const WITHOUT_ENGINES = { MONGODB_URL: '', EVENTSTORE_URL: '', CHROMIUM_PATH: '/nonexistent/chromium' };

/** Mocha on `FILES` with the project's .mocharc.json (its root hook prints the legs); exit code and output. */
function mocha(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['node_modules/mocha/bin/mocha.js', ...FILES], {
      cwd: ROOT, env: { ...process.env, ...WITHOUT_ENGINES, ...env }, timeout: 60_000,
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, output: stdout + stderr }));
  });
}

describe('CI=true: a promised leg that cannot run fails the run, naming why', function () {
  this.timeout(90_000);

  it('fails the MongoDB and browser legs, skips only EventStoreDB, and prints each leg\'s line', async () => {
    const { code, output } = await mocha({ CI: 'true' });
    // Mocha's exit code is the number of failures: the MongoDB leg's one test and the browser suite's hook.
    expect(code, output).to.equal(2);
    expect(output).to.include('CI=true and the MongoDB leg cannot run: MONGODB_URL is not set');
    expect(output).to.include('CI=true and the browser leg cannot run: no chromium at /nonexistent/chromium');
    expect(output).to.match(/^ {4}MongoDB: 1 tests, 0 passed, 1 failed/m);
    expect(output).to.match(/^ {4}EventStoreDB: SKIPPED, EVENTSTORE_URL is not set/m);
    expect(output).to.match(/Legs on Node v\d+\.\d+\.\d+:/);
  });

  it('without CI=true the same legs skip, each saying why, and the run passes', async () => {
    const { code, output } = await mocha({ CI: '' });
    expect(code, output).to.equal(0);
    expect(output).to.match(/^ {4}MongoDB: SKIPPED, MONGODB_URL is not set/m);
    expect(output).to.match(/^ {4}browser: SKIPPED, no chromium at \/nonexistent\/chromium/m);
    expect(output).to.match(/^ {4}EventStoreDB: SKIPPED, EVENTSTORE_URL is not set/m);
  });

  it('fails a test that needs Redis on a machine without redis-server, naming it', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const error = await rejectionOf(startTestRedis());
      expect(String(error)).to.include('redis-server is not on PATH');
    } finally {
      process.env.PATH = path;
    }
  });
});
