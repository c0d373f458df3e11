/**
 * Read your writes at scale (issue 44, item 1): `bash scripts/with-ferretdb.sh node --import tsx
 * bench/read-your-writes.ts [pairs] [--fuzz READS] [--seed N] [--clients N]`. The topology of README.md's "At scale on
 * one machine" as real processes (test/support/replica-topology.ts: the admin API, two BullMQ projector workers, two
 * API replicas, a private redis-server, this run's FerretDB, one SQLite event store) on the demo catalogue (2,413
 * events, bench/fixtures/demo-store.ts).
 *
 * By default: what `X-Min-Position` adds when the replicas are caught up. Once both serve the store's head, each
 * operation (a verification, a watch detail, the status, `get_watch` over MCP) is asked `pairs` times (default 1,000)
 * at one replica then the other, each time twice in a row: without the header and with `X-Min-Position` at that
 * served head, the order alternating from pair to pair; one request at a time. Prints p50 and p99 of both, their
 * ratios and differences; the goal is an added p99 under 20 ms.
 *
 * `--fuzz READS`: the seeded fuzz of test/reliability/min-position-fuzz.test.ts (test/support/min-position-fuzz.ts)
 * with that many reads (the issue's run is 100000), a fault (a worker frozen past its lease, or killed and started
 * again) every READS/50 reads, at least every 1,000; exits 1 on any answer below its minimum, wrong or refused
 * otherwise than documented. Both modes print one JSON line last, with the machine's load average at start and end.
 */
import { cpus, loadavg } from 'node:os';
import { MongoClient } from 'mongodb';
import { demoCatalogue, DEMO_SERIALS } from '../services/demo/demo-catalogue.ts';
import { send, type TestResponse } from '../test/support/http.ts';
import { postMcp, toolCall } from '../test/support/mcp-client.ts';
import { untilRegistryFresh } from '../test/support/registry-fresh.ts';
import { runMinPositionFuzz } from '../test/support/min-position-fuzz.ts';
import { startReplicaTopology, type ReplicaTopology } from '../test/support/replica-topology.ts';
import { copyDemoStore, demoSample } from './fixtures/demo-store.ts';
import { quantile, ratio, round } from './report/stats.ts';

const args = process.argv.slice(2);
const option = (name: string): number | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : Number(args[at + 1]);
};
const fuzzReads = option('--fuzz');
const pairs = Number(args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith('--')) ?? 1_000);
const mongoUrl = process.env['MONGODB_URL'];
if (!mongoUrl) throw new Error('MONGODB_URL is not set: run under scripts/with-ferretdb.sh');

const loadAverage = () => loadavg().map((value) => round(value, 2));
const machine = { cpus: cpus().length, node: process.version, load_average_at_start: loadAverage() };
const log = (line: string) => process.stdout.write(`${line}\n`);

type Ask = (url: string, minimum: number | undefined) => Promise<TestResponse>;

/** The operations asked in the latency mode, each as a client asks it. */
function operations(): Record<string, Ask> {
  const { reference } = demoSample();
  const header = (minimum: number | undefined): Record<string, string> => (minimum === undefined ? {} : { 'x-min-position': String(minimum) });
  return {
    verify: (url, minimum) => send(url, `/api/public/verify/${DEMO_SERIALS.authentic}`, { headers: header(minimum) }),
    detail: (url, minimum) => send(url, `/api/public/catalogue/${reference}`, { headers: header(minimum) }),
    status: (url, minimum) => send(url, '/api/public/status', { headers: header(minimum) }),
    'mcp get_watch': (url, minimum) => postMcp(url, toolCall('get_watch', { reference }), { headers: header(minimum) }),
  };
}

interface Side { p50: number; p99: number }
interface Compared { pairs: number; refused_pairs: number; without: Side; with: Side; ratio_p50: number; ratio_p99: number; added_p50_ms: number; added_p99_ms: number }

/** Milliseconds to an answer; undefined for a 503 (a verification's registry not seen confirmed within its bound). */
async function timed(ask: Ask, url: string, minimum: number | undefined, position: number): Promise<number | undefined> {
  const sent = performance.now();
  const answer = await ask(url, minimum);
  const ms = performance.now() - sent;
  if (answer.status === 503) return undefined;
  // Caught up: every other answer is a 200 at or past the served head, with the header or without.
  if (answer.status !== 200 || !(Number(answer.headers['x-read-model-position']) >= position)) {
    throw new Error(`${url}: ${answer.status} at ${answer.headers['x-read-model-position']}, not at or past ${position}: ${answer.text.slice(0, 200)}`);
  }
  return ms;
}

async function addedLatency(topology: ReplicaTopology): Promise<Record<string, Compared>> {
  const served = await topology.untilServed(120_000);
  for (const url of topology.replicas) await untilRegistryFresh(url, 60_000);
  const figures: Record<string, Compared> = {};
  for (const [name, ask] of Object.entries(operations())) {
    const without: number[] = [];
    const withHeader: number[] = [];
    let refused = 0;
    // Warm-up: each replica's caches and connections, both ways.
    for (let i = 0; i < 20; i += 1) for (const url of topology.replicas) await Promise.all([ask(url, undefined), ask(url, served)]);
    for (let i = 0; i < pairs; i += 1) {
      const url = topology.replicas[i % topology.replicas.length]!;
      const plainFirst = i % 4 < 2;
      const first = await timed(ask, url, plainFirst ? undefined : served, served);
      const second = await timed(ask, url, plainFirst ? served : undefined, served);
      // A pair with a refusal (a loaded machine's registry not confirmed within 5 s) is left out, both sides.
      if (first === undefined || second === undefined) {
        refused += 1;
        continue;
      }
      without.push(plainFirst ? first : second);
      withHeader.push(plainFirst ? second : first);
    }
    const side = (values: number[]): Side => ({ p50: round(quantile(values, 0.5), 2), p99: round(quantile(values, 0.99), 2) });
    const [plain, asked] = [side(without), side(withHeader)];
    figures[name] = {
      pairs: without.length, refused_pairs: refused, without: plain, with: asked, ratio_p50: ratio(asked.p50, plain.p50), ratio_p99: ratio(asked.p99, plain.p99),
      added_p50_ms: round(asked.p50 - plain.p50, 2), added_p99_ms: round(asked.p99 - plain.p99, 2),
    };
    log(`${name.padEnd(14)} without p50 ${plain.p50} ms p99 ${plain.p99} ms | with X-Min-Position p50 ${asked.p50} ms p99 ${asked.p99} ms | added p50 ${figures[name].added_p50_ms} ms p99 ${figures[name].added_p99_ms} ms (x${figures[name].ratio_p99})`);
  }
  return figures;
}

const database = `wc_ryw_bench_${process.pid}`;
const topology = await startReplicaTopology({
  mongoUrl, database, workers: 2, replicas: 2, seed: copyDemoStore,
  env: { RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000000' },
});
let failed = false;
try {
  log(`read your writes on the demo catalogue, 2 replicas, 2 workers, FerretDB/MongoDB at ${mongoUrl}; load ${machine.load_average_at_start.join(' ')}`);
  if (fuzzReads === undefined) {
    const added = await addedLatency(topology);
    const worst = Math.max(...Object.values(added).map((figures) => figures.added_p99_ms));
    log(`goal: added p99 < 20 ms when caught up: worst ${worst} ms, ${worst < 20 ? 'met' : 'NOT met'}`);
    log(JSON.stringify({ machine: { ...machine, load_average_at_end: loadAverage() }, added_latency: added, goal_met: worst < 20 }));
  } else {
    await topology.untilServed(120_000);
    const seed = option('--seed') ?? 44_001;
    const clients = option('--clients') ?? 4;
    const watches = demoCatalogue().watches;
    log(`fuzz: seed ${seed}, ${fuzzReads} reads, ${clients} clients`);
    const report = await runMinPositionFuzz(topology, {
      seed, reads: fuzzReads, clients, readsPerChange: [5, 30], mcpShare: 0.05, pauseMs: 12_000, faultEvery: Math.max(1_000, Math.ceil(fuzzReads / 50)), log,
      watches: watches.slice(0, clients).map((watch) => ({ reference: watch.reference, price_eur: watch.price_cents / 100 })),
      serialReference: watches[0]!.reference,
    });
    const { belowMinimum, wrong, bad, faults, ...figures } = report;
    for (const [what, found] of Object.entries({ 'below their minimum': belowMinimum, 'missing the change': wrong, 'neither right nor the documented refusal': bad })) {
      log(`${found.length} answers ${what}${found.length > 0 ? `, the first: ${found.slice(0, 10).join('\n  ')}` : ''}`);
    }
    failed = belowMinimum.length + wrong.length + bad.length > 0;
    log(JSON.stringify({
      machine: { ...machine, load_average_at_end: loadAverage() }, fuzz: { ...figures, faults: faults.length },
      below_minimum: belowMinimum.length, wrong: wrong.length, bad: bad.length,
    }));
  }
} finally {
  await topology.close();
  const client = await MongoClient.connect(mongoUrl);
  await client.db(database).dropDatabase().finally(() => client.close());
}
process.exit(failed ? 1 : 0);
