/**
 * `npm run soak [-- --seconds 10 --connections 20 --amount 100000]`: a bounded soak of a local instance. Starts
 * the all-in-one service (`main.ts`, demo catalogue, fresh data directory) on loopback ports in its own process,
 * drives every public operation with autocannon while a writer changes prices through the admin API, then checks
 * that every acknowledged write reached the public answers. Prints throughput, error counts and p99 latency, and
 * a last line of JSON; exits 1 on any 5xx, connection error or lost write. Loopback only: it never targets
 * another host.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { DEMO_SERIALS } from '../services/demo/serials.ts';

const HOST = '127.0.0.1';
const ADMIN_KEY = `soak-${randomBytes(24).toString('hex')}`;

function option(name: string, fallback: number, max: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`--${name} must be an integer from 1 to ${max}`);
  return value;
}
const settings = { seconds: option('seconds', 10, 600), connections: option('connections', 20, 500), amount: option('amount', 200_000, 5_000_000) };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function until(what: string, condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-soak-'));
const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
const base = `http://${HOST}:${port}`;
const admin = `http://${HOST}:${adminPort}`;
const service = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../main.ts', import.meta.url))], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env, HOST, PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), DATA_DIR: dataDir,
    SEED_DEMO: 'true', LOG_LEVEL: 'warn', ADMIN_API_KEYS: `${ADMIN_KEY}:catalogue`,
    // One client sends everything: limits high enough to measure the service, not the limiter.
    RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000000',
    REDIS_URL: '', MONGODB_URL: '', EVENTSTORE_URL: '',
  },
});
const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));

let failed = false;
try {
  await until('the service to be ready', async () => (await fetch(`http://${HOST}:${opsPort}/readyz`)).ok, 120_000);
  const catalogue = await json<{ watches: { reference: string; collection: { code: string } }[] }>(`${base}/api/public/catalogue?limit=100`);
  const references = catalogue.watches.map((watch) => watch.reference);
  const collection = catalogue.watches[0]!.collection.code;
  const options = await json<{ models: { model_ref: string }[] }>(`${base}/api/public/configurator/options/${collection}`);
  const priceBody = JSON.stringify({ collection, model_ref: options.models[0]?.model_ref ?? references[0] });

  // The writer: price changes through the admin API for the whole run, each acknowledged one remembered.
  const acknowledged = new Map<string, { price: number; position: number }>();
  let writes = 0;
  let writeErrors = 0;
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const reference = references[i % Math.min(references.length, 10)]!;
      const price = 10_000 + i;
      const response = await fetch(`${admin}/admin/watches/${reference}/price`, {
        method: 'PUT', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ price_eur: price }),
      }).catch(() => null);
      writes += 1;
      if (response?.ok) acknowledged.set(reference, { price, position: ((await response.json()) as { position: number }).position });
      else writeErrors += 1;
      await sleep(20);
    }
  })();

  const detail = references[1] ?? references[0]!;
  // Bounded both ways: autocannon's `amount` would override `duration`, so the count is enforced here (autocannon
  // stops at its next one-second tick, so a run may pass the count by up to a second of requests).
  let answered = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: base,
      connections: settings.connections,
      duration: settings.seconds,
      requests: [
        { method: 'GET', path: '/api/public/catalogue?sort=price_desc&limit=20' },
        { method: 'GET', path: '/api/public/catalogue?search=edition&lang=fr' },
        { method: 'GET', path: `/api/public/catalogue/${detail}` },
        { method: 'GET', path: '/api/public/collections' },
        { method: 'GET', path: `/api/public/configurator/options/${collection}` },
        { method: 'POST', path: '/api/public/configurator/price', headers: { 'content-type': 'application/json' }, body: priceBody },
        { method: 'GET', path: `/api/public/verify/${DEMO_SERIALS.authentic}` },
        { method: 'GET', path: `/api/public/verify/${DEMO_SERIALS.notFound}` },
        { method: 'GET', path: '/api/public/status' },
      ],
    }, (error, finished) => (error ? reject(error) : resolve(finished)));
    instance.on('response', () => {
      answered += 1;
      if (answered === settings.amount) instance.stop();
    });
  });
  writing = false;
  await writer;

  // Every acknowledged price must show in the public answers once the read model has reached its position.
  const last = Math.max(0, ...[...acknowledged.values()].map((ack) => ack.position));
  await until('the read model to reach the last write', async () =>
    (await json<{ read_model: { position: number } }>(`${base}/api/public/status`)).read_model.position >= last, 30_000);
  const lost: string[] = [];
  for (const [reference, ack] of acknowledged) {
    const watch = await json<{ price_eur: number }>(`${base}/api/public/catalogue/${reference}`);
    if (watch.price_eur !== ack.price) lost.push(`${reference}: ${watch.price_eur} instead of ${ack.price}`);
  }

  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  const report = {
    seconds: Math.round(seconds * 10) / 10,
    requests: result.requests.total,
    throughput_rps: Math.round(result.requests.total / seconds),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    status_2xx: result['2xx'], status_4xx: result['4xx'], status_5xx: result['5xx'],
    connection_errors: result.errors, timeouts: result.timeouts,
    admin_writes: writes, admin_write_errors: writeErrors, acknowledged_prices: acknowledged.size, lost_writes: lost,
  };
  failed = report.status_5xx > 0 || report.connection_errors > 0 || report.timeouts > 0 || writeErrors > 0 || lost.length > 0;
  process.stdout.write([
    `soak: ${report.requests} requests in ${report.seconds} s over ${settings.connections} connections`,
    `  throughput ${report.throughput_rps} req/s, latency p50 ${report.p50_ms} ms, p99 ${report.p99_ms} ms`,
    `  2xx ${report.status_2xx}, 4xx ${report.status_4xx}, 5xx ${report.status_5xx}, connection errors ${report.connection_errors}, timeouts ${report.timeouts}`,
    `  admin writes ${writes} (${writeErrors} failed), lost writes ${lost.length}${lost.length ? `: ${lost.join('; ')}` : ''}`,
    failed ? 'FAILED' : 'OK',
    JSON.stringify(report),
  ].join('\n') + '\n');
} catch (error) {
  failed = true;
  process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  service.kill('SIGTERM');
  const code = await Promise.race([exited, sleep(15_000).then(() => 'timeout' as const)]);
  if (code !== 0) {
    failed = true;
    process.stderr.write(`soak: the service did not stop cleanly (${String(code)})\n`);
    if (code === 'timeout') service.kill('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
