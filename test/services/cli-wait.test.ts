/**
 * `watchcat --wait` (docs/api.md, "Read your writes"): a command run against the store of a running service ends
 * once the service's public API serves what it appended, and says at which position; a verification asked right
 * after answers the change. With no API answering, it gives up after the seconds it was given, in one line, exit 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { send } from '../support/http.ts';
import { freePort } from '../support/redis-server.ts';
import { untilRegistryFresh } from '../support/registry-fresh.ts';

/** A demo serial (services/demo/serials.ts), registered and authentic at the first start. */
const SERIAL = 'AUR-2021-000042';

describe('watchcat --wait: a command ends once the public API serves it', function () {
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat | undefined;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-cli-wait-'));
    service = await startWatchcat(loadConfig({
      DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000', VERIFY_RATE_LIMIT_PER_MINUTE: '1000',
    }), createLogger('silent', 'cli-wait-test'));
    await untilRegistryFresh(`http://127.0.0.1:${service.ports.public}`, 60_000);
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function watchcat(port: number, ...args: string[]): Promise<{ code: number; out: string[]; notes: string[] }> {
    const out: string[] = [];
    const notes: string[] = [];
    const context = createCliContext({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent' }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
    return { code: await run(['node', 'watchcat', ...args], context), out, notes };
  }

  it('reports a theft, waits until the API serves it, and says at which position; the verification then says STOLEN', async () => {
    const port = service!.ports.public;
    const reported = await watchcat(port, '--wait', '20', 'serial', 'report-stolen', SERIAL);
    expect(reported.code, reported.notes.join('\n')).to.equal(0);
    const appended = Number(/at position (\d+)/.exec(reported.out.join('\n'))![1]);
    const served = /served by http:\/\/127\.0\.0\.1:\d+ at position (\d+)/.exec(reported.notes.join('\n'));
    expect(served, reported.notes.join('\n')).to.not.equal(null);
    expect(Number(served![1])).to.be.at.least(appended);
    const verified = await send(`http://127.0.0.1:${port}`, `/api/public/verify/${SERIAL}`);
    expect(verified.json().verification_status).to.equal('STOLEN');
    expect(Number(verified.headers['x-read-model-position'])).to.be.at.least(appended);
  });

  it('gives up after the seconds given when no API answers, in one line naming the position, exit 1', async () => {
    const started = performance.now();
    const recovered = await watchcat(await freePort(), '--wait', '1', 'serial', 'recover', SERIAL);
    expect(recovered.code).to.equal(1);
    expect(performance.now() - started).to.be.at.least(1_000);
    expect(recovered.notes.at(-1)).to.match(/^watchcat: position \d+ not served by http:\/\/127\.0\.0\.1:\d+ within 1 s/);
  });

  it('refuses a wait that is not whole seconds as a usage error', async () => {
    expect((await watchcat(1, '--wait', '1.5', 'serial', 'recover', SERIAL)).code).to.equal(2);
  });
});
