/**
 * docs/api.md, "Stores put back from a copy", as real processes (a MongoDB leg): a projector and a read API
 * (`read-api/main.ts`, the cluster mode) over MongoDB (FerretDB in CI) and one SQLite event store. Four events
 * signed, a copy of both stores taken, two more signed; every process stopped, both stores put back from the copy,
 * the processes started again and two other events appended: the history now gives another tree of 6 leaves. The log
 * key must not sign it: the read API refuses it (the error logged, `transparency_log_parked 1`, the checkpoint route
 * 503) and the store keeps the checkpoint of 6 leaves signed before. On b10903e it signed the fork.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { MongoClient, type Document } from 'mongodb';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { appendAll } from '../projector/support/history.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { until } from '../support/until.ts';
import { servedCheckpoint, untilServedSize } from '../support/served-checkpoint.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

/** How often the read API looks at the log (log-publisher.ts's default period), a few times over. */
const SIGNER_LOOKS_MS = 5 * 200;
const serials = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => serialRegistered(`${prefix}-${String(i).padStart(4, '0')}`));

describeMongo('the log key in cluster mode after both stores are put back from an older copy, as real processes', 'the log restore processes test', function (leg) {
  this.timeout(240_000);
  let redis: TestRedis;
  let dataDir: string;
  let env: Record<string, string>;
  let processes: WatchcatProcess[] = [];
  let apiUrl: string;
  let opsUrl: string;
  let mongo: MongoClient;
  const eventsFile = () => join(dataDir, 'events.sqlite3');

  before(async () => {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-log-restore-'));
    env = {
      DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: leg.url, MONGODB_DB: leg.database('logrestore'),
      HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://watch.example',
    };
    mongo = await MongoClient.connect(leg.url);
  });
  after(async () => {
    await Promise.allSettled(processes.map((each) => each.stop()));
    await mongo?.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<void> {
    const projector = startWatchcatProcess('projector', 'projector/main.ts', env);
    processes.push(projector);
    await projector.waitForLine(/projector started/, 120_000);
    const [port, ops] = [await freePort(), await freePort()];
    const api = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(ops) });
    processes.push(api);
    await api.waitForLine(/read API listening/, 120_000);
    apiUrl = `http://127.0.0.1:${port}`;
    opsUrl = `http://127.0.0.1:${ops}`;
  }
  async function stop(): Promise<void> {
    await Promise.all(processes.map((each) => each.stop()));
    processes = [];
  }
  /** Appends `events` to the event store, closed again after. */
  async function append(events: ReturnType<typeof serials>): Promise<void> {
    const store: EventStore = openSqliteEventStore(eventsFile());
    try {
      await appendAll(store, events);
    } finally {
      await store.close();
    }
  }
  const served = () => servedCheckpoint(apiUrl);
  const untilSigned = (size: number) => untilServedSize(apiUrl, size, 60_000);
  const database = () => mongo.db(env['MONGODB_DB']);

  it('refuses the restored history\'s tree of a size it signed, and the store keeps the checkpoint signed before', async () => {
    await start();
    await append(serials('OLD', 4));
    await untilSigned(4);
    // The copy: the event store as SQLite's own backup takes it, and every document of every collection.
    await stop();
    new Database(eventsFile()).exec(`VACUUM INTO '${eventsFile()}.copy'`);
    const copy = new Map<string, Document[]>();
    for (const { name } of await database().listCollections().toArray()) copy.set(name, await database().collection(name).find().toArray());
    await start();

    await append(serials('LOST', 2));
    await untilSigned(6);
    const before = await served();

    await stop();
    await database().dropDatabase();
    for (const [name, docs] of copy) if (docs.length > 0) await database().collection(name).insertMany(docs);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${eventsFile()}${suffix}`, { force: true });
    copyFileSync(`${eventsFile()}.copy`, eventsFile());
    await start();
    await append(serials('NEW', 2));
    const api = processes.find((each) => each.name === 'read-api')!;
    // The restored history projected: either refused, or (the fork) another checkpoint of 6 leaves served.
    await until('the tree of 6 leaves refused or signed', async () => {
      const checkpoint = await served();
      return api.lines.some((line) => line.includes('transparency log: refused to sign a tree of 6 leaves'))
        || (typeof checkpoint !== 'number' && checkpoint.size >= 6 && checkpoint.root !== (before as { root: string }).root);
    }, 120_000);
    // What must not happen has no event to await: the signer looks a few times more.
    await sleep(SIGNER_LOOKS_MS);

    const readStore = await createMongoReadStore(leg.url, env['MONGODB_DB']!);
    try {
      const stored = signedCheckpointOf(await readStore.readControl());
      expect({ size: stored?.size, root: stored?.root }, 'the checkpoint stored').to.deep.equal(before);
    } finally {
      await readStore.close();
    }
    expect(await served(), 'the checkpoint route').to.equal(503);
    // Refused as the restored history stood (4 events, fewer than the 6 signed) if the signer saw its projector confirm
    // that head before the appends were projected, then as it grew: another tree of 6 leaves.
    const refusals = api.lines.flatMap((line) => (line.includes('"alert":"transparency log refused"') ? [(JSON.parse(line) as { msg: string }).msg] : []));
    expect(refusals.at(-1), refusals.join('\n')).to.equal('transparency log: refused to sign a tree of 6 leaves: the first 6 events of the history give another '
      + 'root than the checkpoint signed for that size; it signs and serves nothing until the history is restored');
    const metrics = await (await fetch(`${opsUrl}/metrics`)).text();
    expect(metrics).to.match(/^transparency_log_parked 1$/m);
  });
});
