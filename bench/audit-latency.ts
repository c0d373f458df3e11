/**
 * `node --import tsx bench/audit-latency.ts [--events N] [--root DIR]`: how the public port of the embedded server
 * answers while `GET /audit/projections` rebuilds every read model (issue 17, finding 2). The server runs as its
 * own process (`main.ts` of DIR, default this checkout) over a synthetic history of N events (default 100,000);
 * this process samples `GET /api/public/catalogue` and the ops port's `/healthz` one after the other, first idle,
 * then while four audits are asked for at once, and prints the latencies of each phase.
 *
 * `--root` points at another checkout to measure it the same way (e.g. one from before the fix); its audit needs
 * no key, so none is configured for it.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { formatMark, historyMark } from '../services/audit/history-mark.ts';
import { freePort } from '../test/support/redis-server.ts';
import { syntheticHistoryFile } from './fixtures/synthetic-history.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '100000' }, root: { type: 'string' } } });
const events = Number(values.events);
const root = resolve(values.root ?? resolve(import.meta.dirname, '..'));
const ownCheckout = values.root === undefined;
const AUDIT_KEY = `audit-${'0123456789abcdef'.repeat(3)}`;
const IDLE_MS = 3_000;

const dir = mkdtempSync(join(tmpdir(), 'watchcat-audit-latency-'));
copyFileSync(await syntheticHistoryFile(events), join(dir, 'events.sqlite3'));
// The audit names the history it means (ignored by a checkout from before the route asked for it).
const history = await (async () => {
  const store = openSqliteEventStore(join(dir, 'events.sqlite3'));
  try {
    return formatMark((await historyMark(store))!);
  } finally {
    await store.close();
  }
})();
const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
const server = spawn(process.execPath, ['--import', 'tsx', join(root, 'main.ts')], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env, DATA_DIR: dir, PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1',
    SEED_DEMO: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000',
    ...(ownCheckout ? { ADMIN_API_KEYS: `${AUDIT_KEY}:audit` } : {}),
  },
});

const publicUrl = `http://127.0.0.1:${port}`;
const opsUrl = `http://127.0.0.1:${opsPort}`;

async function timedGet(url: string): Promise<number> {
  const started = performance.now();
  const answer = await fetch(url);
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`${url} answered ${answer.status}`);
  return performance.now() - started;
}

/** Samples both routes one after the other until `done()` says stop. */
async function sample(done: () => boolean): Promise<{ catalogue: number[]; healthz: number[] }> {
  const catalogue: number[] = [];
  const healthz: number[] = [];
  for (let i = 0; !done(); i++) {
    catalogue.push(await timedGet(`${publicUrl}/api/public/catalogue?limit=10&offset=${i % 40}`));
    healthz.push(await timedGet(`${opsUrl}/healthz`));
  }
  return { catalogue, healthz };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const summary = (values: number[]) =>
  `n ${String(values.length).padStart(5)}  p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms  max ${Math.max(...values).toFixed(1).padStart(7)} ms`;

try {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server stopped (exit ${server.exitCode})`);
    if (Date.now() > deadline) throw new Error('the server did not get ready');
    if (await fetch(`${opsUrl}/readyz`).then((answer) => answer.ok, () => false)) break;
    await sleep(200);
  }
  const idleUntil = Date.now() + IDLE_MS;
  const idle = await sample(() => Date.now() > idleUntil);

  let auditing = true;
  const started = performance.now();
  const audits = Promise.all(Array.from({ length: 4 }, async () => {
    const answer = await fetch(`${opsUrl}/audit/projections?history=${history}`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
    await answer.arrayBuffer();
    return { status: answer.status, ms: performance.now() - started };
  })).finally(() => { auditing = false; });
  const during = await sample(() => !auditing);
  const answers = await audits;

  console.log(`checkout ${root}, history of ${events} events`);
  console.log(`audits asked at once: ${answers.map((a) => `${a.status} after ${Math.round(a.ms)} ms`).join(', ')}`);
  console.log(`idle        catalogue ${summary(idle.catalogue)}`);
  console.log(`idle        /healthz  ${summary(idle.healthz)}`);
  console.log(`during      catalogue ${summary(during.catalogue)}`);
  console.log(`during      /healthz  ${summary(during.healthz)}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((done) => server.once('exit', done));
  rmSync(dir, { recursive: true, force: true });
}
