/**
 * The transparency log as a client meets it, over HTTP (issue 32): `node --import tsx bench/log-serving.ts
 * [appends] [seconds-per-round] [rounds] [seed]` (default 200 appends, 2 s, 3 rounds, a random seed, printed).
 * One embedded service (`startWatchcat`, as `npm start` runs it) on a copy of the seeded demo store (about 2,200
 * events, so full level-0 tiles exist), limits too high to trip.
 * - Append to covered: appends go through the admin API as back-office tooling sends them (`POST /admin/serials`,
 *   a `serials` key), spaced by a random 20 to 200 ms gap drawn from the seeded generator; beside them one loop
 *   polls `/.well-known/transparency/checkpoint` every 5 ms, and each append's time is from its answer to the first
 *   checkpoint whose tree size covers its position (SQLite positions are 1, 2, ...: leaf i is position i + 1, checked
 *   at the end by an inclusion proof by position). Goal: p99 under 1 s.
 * - Serving: the checkpoint, a full tile, an inclusion and a consistency proof, against the watch detail and the
 *   verification of the same service, by the load process of the read API bench (autocannon in a process of its
 *   own), taking turns in a rotating order over the rounds after a warm-up; medians of the rounds. Then what proofs
 *   cost the rest of the API: the detail alone, beside a second load process asking for the detail too (the share of
 *   two loads on one server), and beside one asking for inclusion proofs, in alternating order.
 * Every answer must be 2xx: `failures` counts the others and must be 0.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatchcat } from '../all-in-one.ts';
import { loadConfig } from '../shared/config/config.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { between, seededRandom } from '../shared/random/seeded-random.ts';
import { copyDemoStore, demoSample } from './fixtures/demo-store.ts';
import { scratchDir } from './fixtures/bench-dir.ts';
import { BENCH_SETTINGS } from './http/our-server.ts';
import { startLoadClient, type LoadClient } from './load/load-client.ts';
import type { LoadResult } from './load/load-protocol.ts';
import { latency, median, ratio, round } from './report/stats.ts';

const [appends = 200, roundSeconds = 2, rounds = 3, seed = randomInt(2 ** 31)] = process.argv.slice(2).map(Number);
const WARMUP_SECONDS = 1;
const CONNECTIONS = 10;
const POLL_MS = 5;
const ADMIN_KEY = randomBytes(16).toString('hex');

const loadAverages = () => loadavg().map((value) => round(value, 2));
const load = { at_start: loadAverages() };
const sample = demoSample();
const scratch = scratchDir('log-serving');
await copyDemoStore(join(scratch.dir, 'events.sqlite3'));
const service = await startWatchcat(
  loadConfig({
    DATA_DIR: scratch.dir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false',
    ADMIN_API_KEYS: `${ADMIN_KEY}:serials`, ...BENCH_SETTINGS,
  }),
  createLogger('warn', 'log-serving-bench'),
);
const api = `http://127.0.0.1:${service.ports.public}`;
const admin = `http://127.0.0.1:${service.ports.admin}`;
const loads = [startLoadClient(), startLoadClient()] as const;

async function ok(response: Response): Promise<string> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url} answered ${response.status} ${text}`);
  return text;
}
const checkpointSize = async () => Number((await ok(await fetch(`${api}/.well-known/transparency/checkpoint`))).split('\n')[1]);

/** Appends through the admin API; each append's milliseconds to its answer, and from its answer to a covering checkpoint. */
async function appendToCovered(): Promise<{ appendMs: number[]; coveredMs: number[]; lastPosition: number }> {
  const random = seededRandom(seed);
  const pending: { position: number; answeredAt: number }[] = [];
  const appendMs: number[] = [];
  const coveredMs: number[] = [];
  let appending = true;
  const poller = (async () => {
    while (appending || pending.length > 0) {
      const size = await checkpointSize();
      const now = performance.now();
      while (pending[0] !== undefined && pending[0].position <= size) coveredMs.push(now - pending.shift()!.answeredAt);
      if (pending[0] !== undefined && now - pending[0].answeredAt > 10_000) throw new Error(`position ${pending[0].position} not covered after 10 s`);
      await sleep(POLL_MS);
    }
  })();
  let lastPosition = 0;
  try {
    for (let i = 0; i < appends; i += 1) {
      await sleep(between(random, 20, 200));
      const start = performance.now();
      const response = await fetch(`${admin}/admin/serials`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ serial: `LS-${seed}-${i}`, reference: sample.reference, year: 2024 }),
      });
      const { position } = JSON.parse(await ok(response)) as { position: number };
      const answeredAt = performance.now();
      appendMs.push(answeredAt - start);
      pending.push({ position, answeredAt });
      lastPosition = position;
    }
  } finally {
    appending = false;
  }
  await poller;
  return { appendMs, coveredMs, lastPosition };
}

/** Latencies to a tenth of a millisecond. */
const latencyMs = (values: readonly number[]) => latency(values, 1);

let failures = 0;
const measure = async (client: LoadClient, path: string, seconds: number): Promise<LoadResult> => {
  const result = await client.run({ url: api + path, method: 'GET', connections: CONNECTIONS, seconds });
  failures += result.non2xx + result.errors;
  return result;
};
const figures = (results: readonly LoadResult[]) => ({
  rps: round(median(results.map((r) => r.rps))), p99_ms: round(median(results.map((r) => r.p99)), 2),
});

try {
  const before = await checkpointSize();
  const { appendMs, coveredMs, lastPosition } = await appendToCovered();
  const size = await checkpointSize();
  const last = JSON.parse(await ok(await fetch(`${api}/api/public/transparency/inclusion?position=${lastPosition}&tree_size=${size}`))) as { leaf_index: number };
  if (size !== before + appends || last.leaf_index !== lastPosition - 1) {
    throw new Error(`the log holds ${size} leaves after ${appends} appends to ${before}, the last one at leaf ${last.leaf_index} (position ${lastPosition})`);
  }
  if (size < 256) throw new Error(`the log holds ${size} leaves: no full tile to serve`);
  const appendFigures = { ...latencyMs(coveredMs), over_1s: coveredMs.filter((ms) => ms > 1_000).length };
  const afterAppends = loadAverages();

  const routes = {
    checkpoint: '/.well-known/transparency/checkpoint',
    tile: '/transparency/tile/0/000',
    inclusion: `/api/public/transparency/inclusion?index=${Math.floor(size / 2)}&tree_size=${size}`,
    consistency: `/api/public/transparency/consistency?from=${before}&to=${size}`,
    detail: `/api/public/catalogue/${sample.reference}`,
    verify: `/api/public/verify/${sample.serial}`,
  };
  const names = Object.keys(routes) as (keyof typeof routes)[];
  for (const name of names) await measure(loads[0], routes[name], WARMUP_SECONDS);
  const samples = Object.fromEntries(names.map((name) => [name, [] as LoadResult[]])) as Record<keyof typeof routes, LoadResult[]>;
  for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
    for (let turn = 0; turn < names.length; turn += 1) {
      const name = names[(turn + roundIndex) % names.length]!;
      samples[name].push(await measure(loads[0], routes[name], roundSeconds));
    }
  }
  const served = Object.fromEntries(names.map((name) => [name, figures(samples[name])])) as Record<keyof typeof routes, { rps: number; p99_ms: number }>;
  const toDetail = Object.fromEntries(names.filter((name) => name !== 'detail' && name !== 'verify')
    .map((name) => [name, ratio(served[name].rps, served.detail.rps)]));

  // The detail alone, beside more detail requests, beside inclusion proofs: two load processes at once.
  const beside = async (path?: string) => (path === undefined
    ? [await measure(loads[0], routes.detail, roundSeconds)]
    : Promise.all([measure(loads[0], routes.detail, roundSeconds), measure(loads[1], path, roundSeconds)]));
  const conditions = { alone: undefined, beside_detail: routes.detail, beside_inclusion: routes.inclusion };
  const runs = Object.keys(conditions) as (keyof typeof conditions)[];
  await beside(routes.inclusion);
  const shared = Object.fromEntries(runs.map((name) => [name, [] as LoadResult[][]])) as Record<keyof typeof conditions, LoadResult[][]>;
  for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
    for (const name of roundIndex % 2 === 0 ? runs : [...runs].reverse()) shared[name].push(await beside(conditions[name]));
  }
  const detailOf = (name: keyof typeof conditions) => figures(shared[name].map((pair) => pair[0]!));
  const contention = {
    detail_alone: detailOf('alone'),
    detail_beside_detail: detailOf('beside_detail'),
    detail_beside_inclusion: detailOf('beside_inclusion'),
    inclusion_beside_detail: figures(shared.beside_inclusion.map((pair) => pair[1]!)),
    beside_inclusion_to_alone: ratio(detailOf('beside_inclusion').rps, detailOf('alone').rps),
    beside_inclusion_to_beside_detail: ratio(detailOf('beside_inclusion').rps, detailOf('beside_detail').rps),
  };

  console.log(JSON.stringify({
    seed,
    settings: { appends, gap_ms: [20, 200], poll_ms: POLL_MS, connections: CONNECTIONS, warmup_seconds: WARMUP_SECONDS, round_seconds: roundSeconds, rounds },
    load_average: { ...load, after_appends: afterAppends, at_end: loadAverages() },
    tree_size: { before_appends: before, after: size },
    append_ms: latencyMs(appendMs),
    append_to_covered_ms: appendFigures,
    goal_p99_under_1s: appendFigures.p99 < 1_000,
    served,
    rps_to_detail: toDetail,
    contention,
    failures,
  }, null, 2));
} finally {
  await Promise.all(loads.map((client) => client.close()));
  await service.close();
  scratch.remove();
}
