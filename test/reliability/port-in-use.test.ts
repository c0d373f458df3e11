/**
 * Issue 42, item 7: a port in use. A neighbour holds a port a main is told to use, and answers 200 on every path
 * (its `/readyz` included). The main ends with exit code 2 and, as its last line, one line naming the setting and
 * the port, no stack anywhere (on main at 6d537c4: an uncaught `EADDRINUSE` with its stack, exit 1). A main that does
 * start says in its operations answers which process answers (pid and instance id, as its "listening" line says), so
 * whoever waits for it can tell it from the neighbour.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { spawnTs } from '../support/child-process.ts';
import { freePort } from '../support/redis-server.ts';
import { until } from '../support/until.ts';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** Answers 200 `{"ready":true}` to anything, as a stray process on the same port might. */
async function neighbour(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true,"status":"ok"}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const CASES = [
  { main: 'main.ts', name: 'watchcat', setting: 'PORT' },
  { main: 'main.ts', name: 'watchcat', setting: 'OPS_PORT' },
  { main: 'main.ts', name: 'watchcat', setting: 'ADMIN_PORT' },
  { main: 'services/main.ts', name: 'watchcat-services', setting: 'ADMIN_PORT' },
  { main: 'services/main.ts', name: 'watchcat-services', setting: 'HEALTH_PORT' },
  { main: 'projector/main.ts', name: 'projector', setting: 'HEALTH_PORT' },
];

describe('a port in use at start', function () {
  this.timeout(60_000);
  let dir: string;
  let held: Server | undefined;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-port-')); });
  afterEach(() => {
    held?.close();
    held = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every port setting free, on loopback, over an embedded store in `dir`. */
  const settings = async () => ({
    DATA_DIR: dir, HOST: '127.0.0.1', OPS_HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.1', HEALTH_HOST: '127.0.0.1',
    SEED_DEMO: 'false', EVENTSTORE_URL: '', MONGODB_URL: '', REDIS_URL: '', LOG_LEVEL: 'info',
    ADMIN_API_KEYS: `${randomBytes(24).toString('hex')}:catalogue`,
    PORT: String(await freePort()), OPS_PORT: String(await freePort()), ADMIN_PORT: String(await freePort()), HEALTH_PORT: String(await freePort()),
  });

  for (const { main, name, setting } of CASES) {
    it(`${main} with ${setting} held by a neighbour: exit 2, last line naming ${setting} and the port, no stack`, async () => {
      const taken = await neighbour();
      held = taken.server;
      const child = spawnTs(root(main), [], { ...(await settings()), [setting]: String(taken.port) });
      const code = await child.exited;
      const output = child.lines.join('\n');
      expect(code, output).to.equal(2);
      expect(child.lines.at(-1)).to.equal(`${name}: ${setting}=${taken.port}: the port is already in use on 127.0.0.1 `
        + `(another process listens there); stop it or set ${setting} to a free port`);
      expect(output).not.to.match(/EADDRINUSE|\bat \S+ \(|\.ts:\d+/, 'no raw error, no stack');
    });
  }

  it('main.ts says which process answers /healthz and /readyz, as its log says; the neighbour cannot say it', async () => {
    const env = await settings();
    const child = spawnTs(root('main.ts'), [], env);
    try {
      await until('watchcat is serving', () => child.lines.some((line) => line.includes('watchcat is serving')), 45_000);
      const serving = JSON.parse(child.lines.find((line) => line.includes('watchcat is serving'))!) as { pid: number; instance: string };
      expect(serving.pid).to.equal(child.child.pid);
      for (const path of ['/healthz', '/readyz']) {
        const body = await (await fetch(`http://127.0.0.1:${env.OPS_PORT}${path}`)).json() as { process?: unknown };
        expect(body.process, path).to.deep.equal({ pid: child.child.pid, instance: serving.instance });
      }
      const other = await neighbour();
      held = other.server;
      const stray = await (await fetch(`http://127.0.0.1:${other.port}/readyz`)).json() as { process?: unknown };
      expect(stray.process).to.equal(undefined);
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
});
