/**
 * From an admin append to every API replica, at scale (issue 29, item 3): `bash scripts/with-ferretdb.sh node
 * --import tsx bench/replica-freshness.ts [rounds] [--store]`. The topology of README.md's one-machine recipe as real
 * processes (the admin API, two BullMQ projector workers, two read APIs, a private redis-server, this run's
 * FerretDB, one SQLite event store), over a small catalogue. Each round appends through the admin API (price
 * changes and stolen reports / recoveries alternating), then polls each replica every 5 ms until both serve the
 * change itself (the watch's detail at its new price, the serial's verification STOLEN or AUTHENTIC again: the status
 * until the projection it reads reached the append, then the answer), then until their status's
 * `read_model.position` (the lowest position over every projection) reached it. With `--store`, it also polls the projections' checkpoints in MongoDB (when the
 * projectors had them): off by default, since a read of every control document every few ms is a load of its own
 * on FerretDB, which added about 25 ms to the median it measured. Prints percentiles, in ms from the admin answer, and one
 * JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMongoReadStore } from '../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { readProjectionStates } from '../shared/projections/projection-states.ts';
import { createCommandService } from '../services/write/command-service.ts';
import { importCatalogue } from '../services/import/import-catalogue.ts';
import { tinyCatalogue } from '../test/services/support/tiny-catalogue.ts';
import { freePort, startTestRedis } from '../test/support/redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../test/support/watchcat-process.ts';

const args = process.argv.slice(2);
const rounds = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 20);
const pollStore = args.includes('--store');
const POLL_MS = 5;
const mongoUrl = process.env['MONGODB_URL'];
if (!mongoUrl) throw new Error('MONGODB_URL is not set: run under scripts/with-ferretdb.sh');
const KEY = 'replica-freshness-bench-key-0123456789';

const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-replica-freshness-'));
const redis = await startTestRedis();
const database = `wc_freshness_${process.pid}`;
const seedStore = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
await importCatalogue(createCommandService(seedStore), tinyCatalogue());
const seeded = await seedStore.headPosition();
await seedStore.close();
const env = {
  DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: mongoUrl, MONGODB_DB: database, HOST: '127.0.0.1', LOG_LEVEL: 'info', REQUEST_LOG_SAMPLE: '0',
  SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000000', ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`,
};
const mongo = await createMongoReadStore(mongoUrl, database);
const processes: WatchcatProcess[] = [];
const adminPort = await freePort();
const apiUrls: string[] = [];
/**
 * The topology, each process started once the one before it took the ports it was given: a port found free is only
 * free until someone binds it, and two replicas given the same one fail the run. A process that fails to start
 * fails the run, and the `finally` below stops the others.
 */
async function startTopology(): Promise<void> {
  const admin = startWatchcatProcess('services', 'services/main.ts', { ...env, ADMIN_PORT: String(adminPort), HEALTH_PORT: '0' });
  processes.push(admin);
  await admin.waitForLine(/listening/, 60_000);
  for (let i = 0; i < 2; i += 1) processes.push(startWatchcatProcess('projector', 'projector/main.ts', { ...env, HEALTH_PORT: '0' }));
  for (let i = 0; i < 2; i += 1) {
    const port = await freePort();
    const api = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(await freePort()) });
    processes.push(api);
    await api.waitForLine(/listening/, 60_000);
    apiUrls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(processes.map((p) => p.waitForLine(/listening|projector started/, 60_000)));
}

interface StatusAnswer { read_model: { position: number; projections: Array<{ name: string; position: number }> } }
const statusOf = async (url: string) => ((await (await fetch(`${url}/api/public/status`)).json()) as StatusAnswer).read_model;
const servedPosition = async (url: string) => (await statusOf(url)).position;
const projectionPosition = async (url: string, name: string) => (await statusOf(url)).projections.find((p) => p.name === name)?.position ?? 0;
const answerOf = async (url: string, path: string) => (await (await fetch(`${url}${path}`)).json()) as Record<string, unknown>;
const projectedPosition = async () => Math.min(...(await readProjectionStates(mongo)).map((state) => state.position));
async function after(started: number, reached: () => Promise<boolean>): Promise<number> {
  while (!(await reached())) {
    if (performance.now() - started > 30_000) throw new Error('not within 30 s');
    await sleep(POLL_MS);
  }
  return performance.now() - started;
}

const ADMIN = `http://127.0.0.1:${adminPort}`;
/** Each round's change, and the public answer that shows it served (`projection`: the read model it answers from). */
interface Change {
  kind: string; method: string; path: string; body: unknown; projection: string; shownAt: string; shows: (answer: Record<string, unknown>) => boolean;
}
const SERIAL = 'AUR-2024-000001';
const CHANGES: Array<() => Change> = [
  () => {
    const price = 15_000 + Math.floor(Math.random() * 9_999);
    return { kind: 'price', method: 'PUT', path: '/admin/watches/AUR-LU-001/price', body: { price_eur: price }, projection: 'watches', shownAt: '/api/public/catalogue/AUR-LU-001', shows: (answer) => answer['price_eur'] === price };
  },
  () => ({ kind: 'stolen', method: 'POST', path: `/admin/serials/${SERIAL}/stolen`, body: {}, projection: 'serials', shownAt: `/api/public/verify/${SERIAL}`, shows: (answer) => answer['verification_status'] === 'STOLEN' }),
  () => ({ kind: 'recovered', method: 'POST', path: `/admin/serials/${SERIAL}/recovered`, body: {}, projection: 'serials', shownAt: `/api/public/verify/${SERIAL}`, shows: (answer) => answer['verification_status'] === 'AUTHENTIC' }),
];
const projected: number[] = [];
const served: number[] = [];
const servedByKind = new Map<string, number[]>();
const servedStatus: number[] = [];
try {
  await startTopology();
  // Everything caught up with the seeded history first.
  await after(performance.now(), async () => (await projectedPosition()) >= seeded && (await Promise.all(apiUrls.map(servedPosition))).every((p) => p >= seeded));
  for (let round = 0; round < rounds; round += 1) {
    const change = CHANGES[round % CHANGES.length]!();
    const answer = await fetch(`${ADMIN}${change.path}`, {
      method: change.method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(change.body),
    });
    const started = performance.now();
    if (!answer.ok) throw new Error(`${change.method} ${change.path}: ${answer.status} ${await answer.text()}`);
    const { position } = (await answer.json()) as { position: number };
    // Each replica's status is polled (no store read) until the projection the answer reads from reached the append,
    // then the answer itself until it shows the change: polling a verification every 5 ms on both replicas read the
    // store 400 times a second, a load of the bench's own. Then the lowest position over every projection.
    const replica = async (url: string) => {
      await after(started, async () => (await projectionPosition(url, change.projection)) >= position);
      const shown = await after(started, async () => change.shows(await answerOf(url, change.shownAt)));
      return { shown, status: await after(started, async () => (await servedPosition(url)) >= position) };
    };
    const [toProjected, replicas] = await Promise.all([
      pollStore ? after(started, async () => (await projectedPosition()) >= position) : Promise.resolve(Number.NaN),
      Promise.all(apiUrls.map(replica)),
    ]);
    if (pollStore) projected.push(toProjected);
    const shown = Math.max(...replicas.map((r) => r.shown));
    served.push(shown);
    servedByKind.set(change.kind, (servedByKind.get(change.kind) ?? []).concat(shown));
    servedStatus.push(Math.max(...replicas.map((r) => r.status)));
    await sleep(100);
  }
} finally {
  await mongo.close();
  await Promise.all(processes.map((p) => p.stop()));
  await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
};
const summary = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: Math.round(Math.max(...values)) });
const figures = {
  rounds,
  ...(pollStore ? { projected_ms: summary(projected) } : {}),
  served_every_replica_ms: summary(served),
  served_every_replica_by_change_ms: Object.fromEntries([...servedByKind].map(([kind, values]) => [kind, summary(values)])),
  status_position_every_replica_ms: summary(servedStatus),
};
if (figures.projected_ms) {
  process.stdout.write(`append -> all projections checkpointed: p50 ${figures.projected_ms.p50} ms, p99 ${figures.projected_ms.p99} ms\n`);
}
process.stdout.write(`append -> change served by both replicas: p50 ${figures.served_every_replica_ms.p50} ms, p99 ${figures.served_every_replica_ms.p99} ms\n`);
process.stdout.write(`append -> both status positions reached: p50 ${figures.status_position_every_replica_ms.p50} ms, p99 ${figures.status_position_every_replica_ms.p99} ms\n`);
process.stdout.write(`${JSON.stringify(figures)}\n`);
