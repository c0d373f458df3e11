/**
 * The topology of the lease tests (issue 40) as real processes: a private redis-server, the admin API, one read API
 * and projectors started at will (each with a health port of its own, some with a wall clock offset by
 * test/support/clock-offset.mjs), over a MongoDB leg (FerretDB in CI) and one SQLite event store. It reads what
 * a test asserts on: who holds each lease, the processes' health and readiness, a serial's verification. Every
 * wait is bounded, and says what it waited for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { tinyCatalogue } from '../services/support/tiny-catalogue.ts';
import { send } from './http.ts';
import type { MongoLeg } from './mongodb-leg.ts';
import { freePort, startTestRedis, type TestRedis } from './redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from './watchcat-process.ts';

const KEY = 'lease-topology-key-0123456789abcdef';
/** How long a process may take to start on a machine shared with others (a start is seconds alone). */
const START_BOUND_MS = 120_000;

export interface ProjectorProcess {
  process: WatchcatProcess;
  healthUrl: string;
}

/** A health or readiness answer: its status, the projections it names as having no live owner, and all it checked. */
export interface HealthAnswer {
  status: number;
  ownerless: string[];
  checks: Record<string, unknown>;
}

export interface LeaseTopology {
  redis: TestRedis;
  api: { process: WatchcatProcess; url: string; opsUrl: string };
  /** Store of the leases, for the test's own reads. */
  store: ReadStore;
  startProjector(clockOffsetMs?: number): Promise<ProjectorProcess>;
  adminCall(method: string, path: string, body?: unknown): Promise<number>;
  /** The owner of each projection's lease that is not released, by projection. */
  leaseOwners(): Promise<Map<string, string>>;
  /** The projections whose lease the projector process holds (its owner id names its pid). */
  heldBy(projector: ProjectorProcess): Promise<string[]>;
  health(projector: ProjectorProcess): Promise<HealthAnswer>;
  readiness(): Promise<HealthAnswer>;
  verification(serial: string): Promise<string>;
  close(): Promise<void>;
}

/** The projectors' lease in these topologies: short, so that takeovers take seconds; 150 s of skew is still far past it. */
export const TOPOLOGY_LEASE_MS = 4_000;

const ownerOf = (projector: ProjectorProcess) => new RegExp(`:${projector.process.child.pid}:`);

export async function startLeaseTopology(leg: MongoLeg): Promise<LeaseTopology> {
  const redis = await startTestRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-leases-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: leg.url, MONGODB_DB: leg.database('leases'),
    HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info',
    PROJECTION_LEASE_SECONDS: String(TOPOLOGY_LEASE_MS / 1_000),
    ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`, VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const processes: WatchcatProcess[] = [];
  const adminUrl = `http://127.0.0.1:${await freePort()}`;
  const admin = startWatchcatProcess('services', 'services/main.ts', { ...env, ADMIN_PORT: new URL(adminUrl).port });
  processes.push(admin);
  const [port, opsPort] = [await freePort(), await freePort()];
  const apiProcess = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(opsPort) });
  processes.push(apiProcess);
  await admin.waitForLine(/admin API listening/, START_BOUND_MS);
  await apiProcess.waitForLine(/read API listening/, START_BOUND_MS);
  const store = await createMongoReadStore(leg.url, env['MONGODB_DB']!);
  /** Client addresses (TRUST_PROXY): one per request, so that polling never meets the rate limit. */
  let nextClient = 1;

  const answerOf = async (url: string, path: string): Promise<HealthAnswer> => {
    const answer = await send(url, path);
    const checks = answer.json<{ checks?: { ownerless_projections?: string[] } }>().checks ?? {};
    return { status: answer.status, ownerless: checks.ownerless_projections ?? [], checks };
  };

  const topology: LeaseTopology = {
    redis, store,
    api: { process: apiProcess, url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}` },
    async startProjector(clockOffsetMs = 0) {
      const healthPort = await freePort();
      const offset: Record<string, string> = clockOffsetMs === 0 ? {} : {
        NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ./test/support/clock-offset.mjs`.trim(),
        WATCHCAT_CLOCK_OFFSET_MS: String(clockOffsetMs),
      };
      const projector = startWatchcatProcess('projector', 'projector/main.ts', { ...env, HEALTH_PORT: String(healthPort), ...offset });
      processes.push(projector);
      await projector.waitForLine(/projector started/, START_BOUND_MS);
      return { process: projector, healthUrl: `http://127.0.0.1:${healthPort}` };
    },
    async adminCall(method, path, body) {
      const response = await send(adminUrl, path, {
        method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, response.text).to.be.within(200, 201);
      return response.json<{ position?: number }>().position ?? 0;
    },
    async leaseOwners() {
      const leases = (await store.readControl()).filter((doc) => doc._id.startsWith('lease:')) as LeaseDoc[];
      return new Map(leases.filter((lease) => lease.expires_at !== 0).map((lease) => [lease.projection, lease.owner]));
    },
    async heldBy(projector) {
      return [...await topology.leaseOwners()].flatMap(([name, owner]) => (ownerOf(projector).test(owner) ? [name] : []));
    },
    health: (projector) => answerOf(projector.healthUrl, '/healthz'),
    readiness: () => answerOf(topology.api.opsUrl, '/readyz'),
    async verification(serial) {
      const n = nextClient++;
      const answer = await send(topology.api.url, `/api/public/verify/${serial}`, { headers: { 'x-forwarded-for': `10.9.${(n >> 8) & 255}.${n & 255}` } });
      return answer.status === 200 ? answer.json<{ verification_status: string }>().verification_status : String(answer.status);
    },
    async close() {
      await Promise.all(processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).map((p) => {
        p.child.kill('SIGCONT');
        return p.stop();
      }));
      await store.close();
      await redis.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await topology.adminCall('POST', '/admin/import', tinyCatalogue());
  return topology;
}

/** Polls `probe` every 50 ms until it gives a value; fails naming `what` after `ms`. */
export async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}
