/**
 * From an admin append to every API replica (issues 29 and 44): `bash scripts/with-ferretdb.sh node --import tsx
 * bench/replica-freshness.ts [rounds] [--events N] [--before DIR] [--blocks N] [--gap MS] [--burn N]`. README.md's
 * one-machine topology as real processes (bench/fixtures/replica-topology.ts: the admin API, two BullMQ projector
 * workers, two read APIs, Redis, this run's FerretDB, one SQLite event store) over the demo catalogue (2,413
 * events), or with `--events N` over the demo followed by synthetic events up to N (fixtures/synthetic-history.ts).
 * Each round makes one change through the admin API (a price change, a stolen report, a recovery, in turn), then
 * waits `--gap` ms (150) after both replicas served it; it times, from the admin API's answer, when each replica
 * serves the change to a plain request.
 *
 * "Served" is timed as a client without `X-Min-Position` sees it: each replica's status (no store read) is polled
 * every 5 ms until the projection the answer reads from reached the append, then the answer itself until it shows the
 * change (the detail at its new price, the verification STOLEN or AUTHENTIC again); the time is that answer's
 * arrival, so at most 5 ms late. A request with `X-Min-Position` is no measure of it: while it waits it may read the
 * store itself (read-model-clock.ts, `nextReading`), so it can be answered before the replica's own view moves, and
 * it passes the answer caches. Polling the answer alone every few ms would read the store hundreds of times a second
 * (a verification is never kept), a load of the bench's own.
 *
 * `--before DIR`: the same rounds with the code of the checkout DIR, in `--blocks` (2) blocks of each in turn, each
 * block a fresh topology (its own database, Redis and store copy) caught up with the history before its rounds; one
 * topology runs at a time. `--burn N`: N processes spin on the CPU throughout (the machine under more load). Prints
 * a table per side and one JSON line (with the 1-minute load average before and after each block).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_SERIALS } from '../services/demo/demo-catalogue.ts';
import { demoStoreFile, demoWatches } from './fixtures/demo-store.ts';
import { startReplicaTopology, type ReplicaTopology } from './fixtures/replica-topology.ts';
import { syntheticHistoryFile } from './fixtures/synthetic-history.ts';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { parseCheckpoint } from '../shared/read-model/transparency/checkpoint.ts';
import { parseNote } from '../shared/read-model/transparency/signed-note.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
};
const rounds = Number(args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith('--')) ?? 30);
const events = option('--events') === undefined ? undefined : Number(option('--events'));
const beforeRoot = option('--before');
const burners = Number(option('--burn') ?? 0);
/** Milliseconds between a round's end and the next change. */
const gapMs = Number(option('--gap') ?? 150);
/** Blocks per side; each starts a fresh topology. */
const blocks = Number(option('--blocks') ?? (beforeRoot ? 2 : 1));
const POLL_MS = 5;
const BOUND_MS = 30_000;
const CATCH_UP_BOUND_MS = 600_000;
const mongoUrl = process.env['MONGODB_URL'];
if (!mongoUrl) throw new Error('MONGODB_URL is not set: run under scripts/with-ferretdb.sh');

const storeFile = events === undefined ? await demoStoreFile() : await syntheticHistoryFile(events);
const seeded = await (async () => {
  const store = openSqliteEventStore(storeFile);
  try {
    return await store.headPosition();
  } finally {
    await store.close();
  }
})();

interface StatusAnswer { read_model: { position: number; projections: Array<{ name: string; position: number }> } }
const statusOf = async (url: string) => ((await (await fetch(`${url}/api/public/status`)).json()) as StatusAnswer).read_model;
const answerOf = async (url: string, path: string) => (await (await fetch(`${url}${path}`)).json()) as Record<string, unknown>;
/**
 * Whether `url` proves a serial's status at a checkpoint covering the history: its serial index caught up. A replica
 * started before the history was projected builds its index a look at a time, reading the log's changes at each
 * look; rounds begun meanwhile would time that load, not an append.
 */
const indexCaughtUp = async (url: string) => {
  const answer = await fetch(`${url}/api/public/verify/${SERIAL}?proof=index`);
  if (!answer.ok) return false;
  const { proof } = (await answer.json()) as { proof?: { checkpoint: string } };
  return proof !== undefined && parseCheckpoint(parseNote(proof.checkpoint).text).size >= seeded;
};
async function until(started: number, reached: () => Promise<boolean>, boundMs = BOUND_MS, pollMs = POLL_MS): Promise<number> {
  while (!(await reached())) {
    if (performance.now() - started > boundMs) throw new Error(`not within ${boundMs} ms`);
    await sleep(pollMs);
  }
  return performance.now() - started;
}

/** Each round's change, and the public answer that shows it (`projection`: the read model it answers from). */
interface Change {
  kind: string; method: string; path: string; body: unknown; projection: string; shownAt: string; shows: (answer: Record<string, unknown>) => boolean;
}
const WATCH = demoWatches()[0]!.reference;
const SERIAL = DEMO_SERIALS.authentic;
const CHANGES: Array<() => Change> = [
  () => {
    const price = 15_000 + Math.floor(Math.random() * 9_999);
    return {
      kind: 'price', method: 'PUT', path: `/admin/watches/${WATCH}/price`, body: { price_eur: price }, projection: 'watches',
      shownAt: `/api/public/catalogue/${WATCH}`, shows: (answer) => answer['price_eur'] === price,
    };
  },
  () => ({
    kind: 'stolen', method: 'POST', path: `/admin/serials/${SERIAL}/stolen`, body: {}, projection: 'serials',
    shownAt: `/api/public/verify/${SERIAL}`, shows: (answer) => answer['verification_status'] === 'STOLEN',
  }),
  () => ({
    kind: 'recovered', method: 'POST', path: `/admin/serials/${SERIAL}/recovered`, body: {}, projection: 'serials',
    shownAt: `/api/public/verify/${SERIAL}`, shows: (answer) => answer['verification_status'] === 'AUTHENTIC',
  }),
];

/** One round's times (ms from the admin answer), per replica, by kind of change. */
interface Round { kind: string; replicas: number[] }

async function oneRound(topology: ReplicaTopology, change: Change): Promise<Round> {
  const { position, answeredAt } = await topology.append(change.method, change.path, change.body);
  const servedOn = async (url: string) => {
    await until(answeredAt, async () => ((await statusOf(url)).projections.find((p) => p.name === change.projection)?.position ?? 0) >= position);
    return until(answeredAt, async () => change.shows(await answerOf(url, change.shownAt)));
  };
  const replicas = await Promise.all(topology.replicaUrls.map(servedOn));
  return { kind: change.kind, replicas };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
};
const summary = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99), max: Math.round(Math.max(...values)) });
function figuresOf(results: Round[]) {
  const both = results.map((r) => Math.max(...r.replicas));
  const kinds = [...new Set(results.map((r) => r.kind))];
  return {
    rounds: results.length,
    both_replicas_ms: summary(both),
    by_replica_ms: [0, 1].map((i) => summary(results.map((r) => r.replicas[i]!))),
    both_by_change_ms: Object.fromEntries(kinds.map((kind) => [kind, summary(results.filter((r) => r.kind === kind).map((r) => Math.max(...r.replicas)))])),
  };
}

const burning: ChildProcess[] = [];
for (let i = 0; i < burners; i += 1) burning.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const results = new Map<string, Round[]>();
const catchUpMs = new Map<string, number[]>();
/** From a block's start to both replicas proving statuses at a checkpoint covering the history. */
const indexCatchUpMs = new Map<string, number[]>();
const load: number[] = [];
/** One block: a fresh topology of `side`, caught up with the history, then `count` rounds. */
async function block(side: { label: string; root?: string }, count: number): Promise<void> {
  const started = performance.now();
  const topology = await startReplicaTopology({ ...side, storeFile, mongoUrl: mongoUrl!, database: `${side.label}_${catchUpMs.get(side.label)?.length ?? 0}` });
  try {
    // The whole history projected and served by both replicas first.
    await until(started, async () => (await Promise.all(topology.replicaUrls.map(statusOf))).every((s) => s.position >= seeded), CATCH_UP_BOUND_MS)
      .catch((error: unknown) => {
        throw new Error(`${side.label}: the history was not served in time (${String(error)})`);
      });
    catchUpMs.set(side.label, [...catchUpMs.get(side.label) ?? [], Math.round(performance.now() - started)]);
    // Asked twice a second: a proof every few milliseconds would be a load of its own, slowing what it waits for.
    await until(started, async () => (await Promise.all(topology.replicaUrls.map(indexCaughtUp))).every(Boolean), CATCH_UP_BOUND_MS, 500)
      .catch((error: unknown) => {
        throw new Error(`${side.label}: the replicas' serial indexes did not reach the history in time (${String(error)})`);
      });
    indexCatchUpMs.set(side.label, [...indexCatchUpMs.get(side.label) ?? [], Math.round(performance.now() - started)]);
    await sleep(2_000);
    load.push(loadavg()[0]!);
    for (let round = 0; round < count; round += 1) {
      results.set(side.label, [...results.get(side.label) ?? [], await oneRound(topology, CHANGES[round % CHANGES.length]!())]);
      await sleep(gapMs);
    }
    load.push(loadavg()[0]!);
  } finally {
    await topology.stop();
  }
}
try {
  // With the code before: blocks of each in turn, one topology up at a time (two at once shared FerretDB, the
  // slower one's reads weighing on the other's), so that a change of the machine's load meets both.
  const sides = beforeRoot ? [{ label: 'before', root: beforeRoot }, { label: 'after' }] : [{ label: 'this' }];
  const perBlock = Math.ceil(rounds / blocks);
  for (let i = 0; i < blocks; i += 1) for (const side of sides) await block(side, perBlock);
} finally {
  for (const child of burning) child.kill('SIGKILL');
}

const report = {
  events: seeded, poll_ms: POLL_MS, gap_ms: gapMs, burners, blocks, load_average_1m: load.map((l) => Math.round(l * 10) / 10),
  catch_up_ms: Object.fromEntries(catchUpMs), index_catch_up_ms: Object.fromEntries(indexCatchUpMs),
  sides: Object.fromEntries([...results].map(([label, rounds]) => [label, figuresOf(rounds)])),
};
for (const [label, figures] of Object.entries(report.sides)) {
  const line = (name: string, s: { p50: number; p95: number; p99: number; max: number }) => `  ${name.padEnd(18)} p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, max ${s.max} ms\n`;
  process.stdout.write(`${label}: append -> served, ${figures.rounds} rounds over ${seeded} events\n`);
  process.stdout.write(line('both replicas', figures.both_replicas_ms));
  figures.by_replica_ms.forEach((s, i) => process.stdout.write(line(`replica ${i + 1}`, s)));
  for (const [kind, s] of Object.entries(figures.both_by_change_ms)) process.stdout.write(line(`both, ${kind}`, s));
}
process.stdout.write(`${JSON.stringify(report)}\n`);
