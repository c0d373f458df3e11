/**
 * README.md's "At scale on one machine" topology as real processes, for the read-your-writes fuzz and its benchmark
 * (issue 44): the admin API (`services/main.ts`), projector workers (`projector/main.ts`) and API replicas
 * (`read-api/main.ts`), sharing a private redis-server, a MongoDB database (FerretDB in CI) and one SQLite event
 * store that the caller fills first (the demo catalogue, say). Each process is started once the one before it took
 * the ports it was given (a port found free stays free only until someone binds it). Workers can be frozen
 * (SIGSTOP), let go on (SIGCONT), killed (SIGKILL) and started again; the leases each holds are read from the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { seedDemo } from '../../services/import/seed-demo.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { send } from './http.ts';
import { waitFor } from './lease-topology.ts';
import { freePort, startTestRedis, type TestRedis } from './redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from './watchcat-process.ts';

const KEY = 'replica-topology-key-0123456789abcdef';
/** How long a process may take to start on a machine shared with others (tsx compiles at each start). */
const START_BOUND_MS = 120_000;

export interface TopologyOptions {
  mongoUrl: string;
  /** A database no other run uses. */
  database: string;
  workers: number;
  replicas: number;
  /** Fills the event store (a SQLite file at this path) before any process starts. */
  seed(storeFile: string): Promise<void>;
  /** Settings on top of the topology's own, for every process. */
  env?: Record<string, string>;
}

export interface Worker {
  process: WatchcatProcess;
  /** Frozen by `pause` and not yet resumed. */
  paused: boolean;
}

export interface ReplicaTopology {
  /** The replicas' public base URLs. */
  replicas: string[];
  workers: Worker[];
  /** An admin change through the admin API; the position it answers (its body's, which `X-Position` repeats). */
  change(method: string, path: string, body?: unknown): Promise<number>;
  /** The event store's head position. */
  head(): Promise<number>;
  /** Waits until every replica's status says the read models are at the head (within `ms`); the head. */
  untilServed(ms: number): Promise<number>;
  /** The projections whose lease worker `index` holds (its owner id names its pid). */
  leasesOf(index: number): Promise<string[]>;
  pause(index: number): void;
  resume(index: number): void;
  /** SIGKILL, then a new worker in its place, once it says it started. */
  restart(index: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReplicaTopology(options: TopologyOptions): Promise<ReplicaTopology> {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-replicas-'));
  const processes: WatchcatProcess[] = [];
  let redis: TestRedis | undefined;
  let store: ReadStore | undefined;
  const close = async () => {
    await Promise.all(processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).map((p) => {
      p.child.kill('SIGCONT');
      return p.stop();
    }));
    await store?.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const eventFile = join(dataDir, 'events.sqlite3');
    await options.seed(eventFile);
    redis = await startTestRedis();
    const env: Record<string, string> = {
      DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: options.mongoUrl, MONGODB_DB: options.database,
      HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'info', REQUEST_LOG_SAMPLE: '0',
      ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`, ...options.env,
    };
    const adminUrl = `http://127.0.0.1:${await freePort()}`;
    const admin = startWatchcatProcess('services', 'services/main.ts', { ...env, ADMIN_PORT: new URL(adminUrl).port });
    processes.push(admin);
    await admin.waitForLine(/admin API listening/, START_BOUND_MS);
    const startWorker = async (): Promise<Worker> => {
      const worker = startWatchcatProcess('projector', 'projector/main.ts', env);
      processes.push(worker);
      await worker.waitForLine(/projector started/, START_BOUND_MS);
      return { process: worker, paused: false };
    };
    const workers: Worker[] = [];
    for (let i = 0; i < options.workers; i += 1) workers.push(await startWorker());
    const replicas: string[] = [];
    for (let i = 0; i < options.replicas; i += 1) {
      const [port, opsPort] = [await freePort(), await freePort()];
      const replica = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(opsPort) });
      processes.push(replica);
      await replica.waitForLine(/read API listening/, START_BOUND_MS);
      replicas.push(`http://127.0.0.1:${port}`);
    }
    store = await createMongoReadStore(options.mongoUrl, options.database);
    const leaseStore = store;
    const head = async () => {
      const events = openSqliteEventStore(eventFile);
      try {
        return await events.headPosition();
      } finally {
        await events.close();
      }
    };
    const signal = (index: number, name: NodeJS.Signals, paused: boolean) => {
      const worker = workers[index]!;
      worker.process.child.kill(name);
      worker.paused = paused;
    };
    return {
      replicas, workers, close,
      async change(method, path, body) {
        const answer = await send(adminUrl, path, {
          method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        if (answer.status !== 200 && answer.status !== 201) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
        return answer.json<{ position: number }>().position;
      },
      head,
      async untilServed(ms) {
        const at = await head();
        await waitFor(`every replica serves position ${at}`, ms, async () => {
          const positions = await Promise.all(replicas.map(async (url) => (await send(url, '/api/public/status')).json().read_model.position as number));
          return positions.every((position) => position >= at) ? true : undefined;
        });
        return at;
      },
      async leasesOf(index) {
        const owner = new RegExp(`:${workers[index]!.process.child.pid}:`);
        const leases = (await leaseStore.readControl()).filter((doc) => doc._id.startsWith('lease:')) as LeaseDoc[];
        return leases.filter((lease) => lease.expires_at !== 0 && owner.test(lease.owner)).map((lease) => lease.projection).sort();
      },
      pause: (index) => signal(index, 'SIGSTOP', true),
      resume: (index) => signal(index, 'SIGCONT', false),
      async restart(index) {
        await workers[index]!.process.kill();
        workers[index] = await startWorker();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The demo catalogue, through the command handlers, into the store at `file`: what `npx watchcat seed` does. */
export async function seedDemoStore(file: string): Promise<void> {
  const store = openSqliteEventStore(file);
  try {
    await seedDemo(createCommandService(store, { actor: 'seed' }));
  } finally {
    await store.close();
  }
}
