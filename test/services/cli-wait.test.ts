/**
 * `watchcat --wait` (docs/api.md, "Read your writes"): a command run against the store of a running service ends
 * once the service's public API serves what it appended, and says at which position; a verification asked right
 * after answers the change. With no API answering, it gives up after the seconds it was given, in one line, exit 1;
 * with one that does not vouch for its read models (a projection parked), the line says where they stand and so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { waitUntilServed } from '../../services/cli/served-wait.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { configuratorsProjection } from '../../shared/read-model/projections/configurators.projection.ts';
import { liveCheckpointOf, readControlDocs, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
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

  it('gives up on a parked projection saying where the API stands and that it is degraded, not only that it answered 503', async () => {
    const port = service!.ports.public;
    const { readStore } = service!;
    const { checkpoint } = liveCheckpointOf(await readControlDocs(readStore), configuratorsProjection);
    const parked: CheckpointState = { ...checkpoint!, status: 'parked', parked: { position: checkpoint!.position, reason: 'parked by the test' } };
    await readStore.setControl(parked, {}, true);
    try {
      // Past the API's own wait (MIN_POSITION_WAIT_MS, 2 s) and its Retry-After, so that it answered 503 at least once.
      const reported = await watchcat(port, '--wait', '4', 'serial', 'report-stolen', SERIAL);
      expect(reported.code).to.equal(1);
      expect(reported.notes.at(-1)).to.match(
        /^watchcat: position \d+ not served by http:\/\/127\.0\.0\.1:\d+ within 4 s \(last answer 503; its read models stand at position \d+, status degraded: the API's \/healthz on its ops port says what it cannot vouch for\)$/,
      );
    } finally {
      expect(await resumeProjection(readStore, configuratorsProjection)).to.equal(true);
    }
  });

  it('refuses a wait that is not whole seconds as a usage error', async () => {
    expect((await watchcat(1, '--wait', '1.5', 'serial', 'recover', SERIAL)).code).to.equal(2);
  });
});

describe('watchcat --wait: the last look at the status, when the wait runs out', function () {
  let server: Server;
  let base: string;
  /** What the status answers without `X-Min-Position`; with it, always the contract's 503. */
  let plainStatus: { code: number; body: string };
  before(async () => {
    server = createServer((request, response) => {
      if (request.headers['x-min-position'] !== undefined) {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"detail":"not yet"}');
        return;
      }
      response.writeHead(plainStatus.code, { 'content-type': 'application/json' }).end(plainStatus.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const refusal = (position: number) => waitUntilServed(base, position, 300).then(() => undefined, (error: unknown) => error as Error);

  it('says the position and status of an API that vouches for its read models, with no word of /healthz', async () => {
    plainStatus = { code: 200, body: JSON.stringify({ status: 'ok', read_model: { position: 41 } }) };
    expect((await refusal(42))?.message).to.equal(`position 42 not served by ${base} within 0.3 s (last answer 503; its read models stand at position 41, status ok)`);
  });

  it('says nothing more of an answer that is not a status: another code, no position, no status, not JSON', async () => {
    for (const plain of [
      { code: 500, body: JSON.stringify({ status: 'ok', read_model: { position: 41 } }) },
      { code: 200, body: JSON.stringify({ status: 'ok', read_model: { position: '41' } }) },
      { code: 200, body: JSON.stringify({ status: 7, read_model: { position: 41 } }) },
      { code: 200, body: '<html>a proxy page</html>' },
    ]) {
      plainStatus = plain;
      expect((await refusal(42))?.message, plain.body).to.equal(`position 42 not served by ${base} within 0.3 s (last answer 503)`);
    }
  });
});
