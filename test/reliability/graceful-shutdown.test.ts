/**
 * Graceful shutdown on SIGTERM under load (issue 7, item 3), on the real all-in-one process (`main.ts`, as
 * `npm start` runs it) with BullMQ and shared rate limits on a private Redis. While clients call the API, a
 * request is in flight and projection jobs are running, SIGTERM arrives: readiness must turn false, the request
 * in flight must finish, the process must exit cleanly within a deadline, and no BullMQ job may be left active
 * (a job left active by a dead worker is a stalled job).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { appendAll } from '../projector/support/history.ts';
import { spawnTs } from '../support/child-process.ts';
import { send } from '../support/http.ts';
import { largeHistory } from '../support/large-history.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.ts';

const MAIN = fileURLToPath(new URL('../../main.ts', import.meta.url));
const EXIT_DEADLINE_MS = 15_000;

async function until(what: string, condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

/** Starts a price request and sends only half of its body; `finish()` sends the rest and resolves with the answer. */
function halfSentRequest(url: string): { finish(): Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({ collection: 'tempo', model_ref: 'LH-000' });
  let answer!: Promise<{ status: number; body: string }>;
  const req = httpRequest(`${url}/api/public/configurator/price`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  answer = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 10));
  return { finish: () => { req.end(body.slice(10)); return answer; } };
}

describe('graceful shutdown of the all-in-one process on SIGTERM under load', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let dir: string;

  before(async function () {
    redis = await startTestRedis();
    dir = mkdtempSync(join(tmpdir(), 'watchcat-shutdown-'));
  });
  after(async function () {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('turns readiness false, finishes the request in flight, exits 0 within the deadline and leaves no job active', async function () {
    const events = largeHistory(3, 3_000);
    const eventsFile = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(eventsFile);
    await appendAll(store, events.slice(0, 300));
    const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
    const child = spawnTs(MAIN, [], {
      PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1',
      DATA_DIR: dir, REDIS_URL: redis.url, SEED_DEMO: 'false', LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', SHUTDOWN_DRAIN_SECONDS: '0.5',
    });
    const url = `http://127.0.0.1:${port}`;
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    try {
      await until('ready', async () => (await send(opsUrl, '/readyz')).status === 200, 40_000);

      // Load: clients on the public port, as behind a load balancer polling readiness: they send until readiness
      // says 503 (the process keeps answering for SHUTDOWN_DRAIN_SECONDS meanwhile), or until the port closes. Only
      // a refused connection means closed; a connection dropped with a request on it (reset, hang up) is an answer
      // lost, counted as such. Without the drain, any listener closed under load resets the connections still in
      // its backlog. One connection per request: a request sent on a kept-alive connection just as the server
      // closes it idle is reset by any server (HTTP/1.1 leaves such a retry to the client), which would say nothing
      // about this one.
      let loading = true;
      let notReady = false;
      const statuses: number[] = [];
      const dropped: string[] = [];
      const load = (async () => {
        while (loading && !notReady) {
          try {
            statuses.push((await send(url, '/api/public/catalogue?limit=5', { headers: { connection: 'close' } })).status);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') return;
            dropped.push(String((error as NodeJS.ErrnoException).code ?? error));
          }
        }
      })();
      const inFlight = halfSentRequest(url);
      await sleep(100);
      // Projection work under way when the signal comes: a burst of appends from another process.
      await appendAll(store, events.slice(300));
      await sleep(20);

      const signalledAt = Date.now();
      child.child.kill('SIGTERM');
      const readiness: number[] = [];
      const watchReadiness = (async () => {
        for (;;) {
          try {
            const status = (await send(opsUrl, '/readyz')).status;
            readiness.push(status);
            notReady ||= status === 503;
          } catch {
            return; // the operations port closed after the public one
          }
        }
      })();
      await sleep(300);
      const answered = await inFlight.finish();
      const exit = await Promise.race([child.exited, sleep(EXIT_DEADLINE_MS).then(() => 'deadline passed' as const)]);
      loading = false;
      await Promise.all([load, watchReadiness]);

      expect(exit, `exit after SIGTERM (${child.lines.join(' | ')})`).to.equal(0);
      console.log(`      exited ${Date.now() - signalledAt} ms after SIGTERM; ${statuses.length} answers under load; readiness ${[...new Set(readiness)].join('/')}`);
      expect(answered.status, `the request in flight: ${answered.body}`).to.be.within(200, 499);
      expect(() => JSON.parse(answered.body)).to.not.throw();
      expect(readiness, 'readiness after SIGTERM').to.include(503);
      expect(readiness.slice(readiness.indexOf(503)), 'readiness never turns true again').to.not.include(200);
      expect(statuses.filter((status) => status >= 500), 'server errors under load').to.deep.equal([]);
      expect(dropped, 'requests whose connection was dropped under load').to.deep.equal([]);

      const queue = new Queue('projections', { connection: { host: '127.0.0.1', port: redis.port } });
      const counts = await queue.getJobCounts('active', 'waiting', 'delayed', 'failed');
      await queue.close();
      expect(counts['active'], `jobs left active (stalled) ${JSON.stringify(counts)}`).to.equal(0);
      expect(counts['failed'], `failed jobs ${JSON.stringify(counts)}`).to.equal(0);
    } finally {
      if (child.child.exitCode === null && child.child.signalCode === null) await child.kill();
      await store.close();
    }
  });
});
