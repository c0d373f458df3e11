/**
 * Issue 20: the seeded, bounded, randomized test of the projection guarantees (test/support/projection-fuzz.ts),
 * on the in-memory read store and, as a MongoDB leg, on MongoDB (FerretDB in CI, a shorter run: it is slow).
 * Three seeds in memory with in-process queues (each worker its own, as if BullMQ's lock were always lost), one with
 * BullMQ workers sharing a private Redis that goes down with the store, one on MongoDB (seed 9 draws every kind
 * of action within its 20 steps); each is printed, and `WATCHCAT_FUZZ_SEED=<seed>` runs that one alone (the
 * same choices of action; the store calls' interleaving also depends on timing).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { PROJECTION_RETRY_POLICY } from '../../projector/retry-policy.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { runProjectionFuzz, type FuzzSettings } from '../support/projection-fuzz.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { appendAsNewerVersion, type NewerEvent } from '../support/newer-writer.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where two views first differ (collection, document), as JSON, for a readable failure. */
function firstDifference(actual: Record<string, StoredDoc[]>, expected: Record<string, StoredDoc[]>): string | undefined {
  const canonical = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
  for (const collection of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
    const [got, want] = [actual[collection] ?? [], expected[collection] ?? []];
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      const [a, b] = [canonical(got[i]), canonical(want[i])];
      if (a !== b) return `${collection}[${i}]: ${a} instead of ${b}`;
    }
  }
  return undefined;
}

const REPLAY = process.env['WATCHCAT_FUZZ_SEED'];

function fuzzRun(seeds: number[], settings: Omit<FuzzSettings, 'seed'>, open: () => Promise<ReadStore>): void {
  for (const seed of REPLAY === undefined ? seeds : [Number(REPLAY)]) fuzzSeed(seed, settings, open);
}

function fuzzSeed(seed: number, settings: Omit<FuzzSettings, 'seed'>, open: () => Promise<ReadStore>): void {
  it(`workers paused, killed, cut off from the store and rebuilt under: positions never go back, no stolen serial is AUTHENTIC, and the models settle to a clean rebuild (seed ${seed})`, async function () {
    console.log(`      projection fuzz seed ${seed} (replay: WATCHCAT_FUZZ_SEED=${seed})`);
    // A file, so that a newer version of the service can append to it beside this one (test/support/newer-writer.ts).
    const dir = mkdtempSync(join(tmpdir(), 'watchcat-fuzz-'));
    const file = join(dir, 'events.sqlite3');
    const eventStore = openSqliteEventStore(file);
    const store = await open();
    try {
      const newerWriter = (stream: string, events: NewerEvent[]) => appendAsNewerVersion(file, stream, events).at(-1)!;
      const report = await runProjectionFuzz(eventStore, store, { seed, newerWriter, ...settings });
      console.log(`      actions: ${Object.entries(report.actions).map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
      expect(report.violations, `seed ${seed}`).to.deep.equal([]);
      const difference = firstDifference(report.settled, report.rebuilt);
      if (difference) expect.fail(`seed ${seed}: the settled read models differ from a clean rebuild at ${difference}`);
      expect(report.settled).to.deep.equal(report.rebuilt);
      expect(Object.keys(report.actions), `seed ${seed}: kinds of action drawn`).to.include.members(['append', 'rebuild']);
    } finally {
      await store.close();
      await eventStore.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

describe('projection guarantees under a seeded random run of faults (in-memory read store)', function () {
  this.timeout(60_000);
  fuzzRun([1, 2, 3], { events: 400, steps: 150, workers: 3, settleMs: 5_000 }, async () => createMemoryReadStore());
});

describe('projection guarantees under a seeded random run of faults (BullMQ workers on one Redis, Redis outages too)', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  before(async () => { redis = await startTestRedis(); });
  after(() => redis?.stop());
  const queueName = `fuzz-${randomUUID()}`;
  fuzzRun([7], {
    events: 250, steps: 80, workers: 2, settleMs: 15_000,
    queue: () => createBullMqJobQueue({ redisUrl: redis.url, queueName, policy: PROJECTION_RETRY_POLICY, concurrency: 4 }),
    outage: { begin: () => redis.stop(true), end: () => redis.start() },
  }, async () => createMemoryReadStore());
});

describeMongo('projection guarantees under a seeded random run of faults (MongoDB read store)', 'the projection fuzz over MongoDB', function (leg) {
  this.timeout(120_000);
  fuzzRun([9], { events: 60, steps: 20, workers: 2, settleMs: 15_000 }, () => createMongoReadStore(leg.url, leg.database('fuzz')));
});
