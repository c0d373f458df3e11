/**
 * `npm run bench [-- --quick] [-- --read-api | --mcp | --bounded | --projection-scale | --batch-work]`: every benchmark of issue 5
 * in one run. Prints a table per section, then, as its last line, one JSON object with every figure. `--quick` shrinks
 * rounds and sizes to finish within two minutes; `--read-api` runs the read API section alone (its table, its goals,
 * its JSON line); `--mcp` the MCP section alone (issue 24: a tools/call of get_watch against the HTTP detail route);
 * `--bounded` the bounded-work section alone, `--projection-scale` the projections at scale alone (both issue 20),
 * `--batch-work` one batch of 2,000 events over a large registry alone (issue 28).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { startTestRedis } from '../test/support/redis-server.ts';
import { startLoadClient } from './load/load-client.ts';
import { checkGoals, readApiGoals } from './report/goals.ts';
import { boundedTable, freshnessTable, goalsTable, mongoTable, projectionTable, readApiTable, refusalFloodTable, scaleTable, writeSideTable } from './report/print.ts';
import { benchBatchWork, batchWorkTable } from './sections/batch-work.bench.ts';
import { benchBoundedWork } from './sections/bounded-work.bench.ts';
import { benchMcp, mcpTable } from './sections/mcp.bench.ts';
import { benchFreshness } from './sections/freshness.bench.ts';
import { benchMongo } from './sections/mongodb.bench.ts';
import { benchProjection } from './sections/projection.bench.ts';
import { benchReadApi } from './sections/read-api.bench.ts';
import { benchRefusalFlood } from './sections/refusal-flood.bench.ts';
import { benchScale } from './sections/scale.bench.ts';
import { benchProjectionScale, projectionScaleTable } from './sections/projection-scale.bench.ts';
import { benchWriteSide } from './sections/write-side.bench.ts';

const quick = process.argv.includes('--quick');
const readApiOnly = process.argv.includes('--read-api');
const mcpOnly = process.argv.includes('--mcp');
const boundedOnly = process.argv.includes('--bounded');
const projectionScaleOnly = process.argv.includes('--projection-scale');
const batchWorkOnly = process.argv.includes('--batch-work');
const SETTINGS = quick
  ? {
    readApi: { warmupSeconds: 0.1, roundSeconds: 0.25, rounds: 3, connections: 10 },
    projection: { events: 100_000, rounds: 1 },
    writeSide: { commands: 300, rounds: 3 },
    freshness: 150,
    scale: { watches: [100, 1_000, 10_000], serials: [10_000, 100_000], catalogueQueries: 70, verifications: 2_000 },
    mongo: { serials: 300, freshness: 100 },
    bounded: { watches: [1_000, 10_000], searches: 60, priceChanges: 60 },
    projectionScale: { watches: [1_000, 10_000], priceChanges: 1_000, freshness: { watches: 1_000, changes: 100 } },
    batchWork: { serials: [10_000, 100_000], serialsPerWatch: [100], rounds: 1 },
  }
  : {
    readApi: { warmupSeconds: 1, roundSeconds: 2, rounds: 5, connections: 10 },
    projection: { events: 1_000_000, rounds: 3 },
    writeSide: { commands: 3_000, rounds: 5 },
    freshness: 1_000,
    scale: { watches: [100, 1_000, 10_000, 100_000], serials: [10_000, 100_000, 1_000_000], catalogueQueries: 70, verifications: 10_000 },
    mongo: { serials: 1_000, freshness: 500 },
    bounded: { watches: [1_000, 10_000, 100_000], searches: 120, priceChanges: 120 },
    projectionScale: { watches: [1_000, 10_000, 100_000], priceChanges: 2_000, freshness: { watches: 10_000, changes: 300 } },
    batchWork: { serials: [10_000, 100_000], serialsPerWatch: [10, 100], rounds: 5 },
  };

const log = (text: string) => process.stdout.write(`${text}\n`);
const started = performance.now();
const machine = {
  cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(totalmem() / 2 ** 30),
  node: process.version, load_average_at_start: loadavg().map((value) => Math.round(value * 100) / 100),
};
log(`watchcat benchmarks (${quick ? 'quick' : 'full'}) on ${machine.cpus} x ${machine.cpu}, Node ${machine.node}, load ${machine.load_average_at_start.join(' ')}`);

if (boundedOnly) {
  // The bounded-work section alone: in process, no Redis, no load generator.
  const bounded = await benchBoundedWork(SETTINGS.bounded, (figures) => log(JSON.stringify(figures)));
  log(boundedTable(bounded));
  log(JSON.stringify({ quick, machine, bounded }));
  process.exit(0);
}

if (projectionScaleOnly) {
  // The projections at scale alone: in process, embedded adapters, no Redis, no load generator.
  const projectionScale = await benchProjectionScale(SETTINGS.projectionScale);
  log(projectionScaleTable(projectionScale));
  log(JSON.stringify({ quick, machine: { ...machine, load_average_at_end: loadavg() }, projection_scale: projectionScale }));
  process.exit(0);
}

if (batchWorkOnly) {
  // One batch over a large registry alone: in process, the embedded store, no Redis.
  const batchWork = await benchBatchWork(SETTINGS.batchWork);
  log(batchWorkTable(batchWork));
  log(JSON.stringify({ quick, machine: { ...machine, load_average_at_end: loadavg() }, batch_work: batchWork }));
  process.exit(0);
}

const redis = await startTestRedis();
const load = startLoadClient();
const loadAverage = () => loadavg().map((value) => Math.round(value * 100) / 100);
try {
  const mcp = readApiOnly ? undefined : await benchMcp(SETTINGS.readApi, load);
  if (mcp) log(mcpTable(mcp));
  const readApi = mcpOnly ? undefined : await benchReadApi(SETTINGS.readApi, load, redis.url);
  if (readApi) log(readApiTable(readApi));
  const refusalFlood = mcpOnly ? undefined : await benchRefusalFlood(SETTINGS.readApi, load, redis.url);
  if (refusalFlood) log(refusalFloodTable(refusalFlood));
  await load.close();
  if (readApi === undefined || refusalFlood === undefined) {
    log(JSON.stringify({ quick, machine: { ...machine, load_average_at_end: loadAverage() }, mcp }));
  } else if (readApiOnly) {
    const goals = readApiGoals(readApi, refusalFlood);
    log(goalsTable(goals));
    log(JSON.stringify({ quick, machine: { ...machine, load_average_at_end: loadAverage() }, read_api: readApi, refusal_flood: refusalFlood, goals }));
  } else {
    const projection = await benchProjection(SETTINGS.projection);
    log(projectionTable(projection));
    const writeSide = await benchWriteSide(SETTINGS.writeSide.commands, SETTINGS.writeSide.rounds);
    log(writeSideTable(writeSide));
    const freshness = await benchFreshness(SETTINGS.freshness, redis.url);
    log(freshnessTable(freshness));
    const scale = await benchScale(SETTINGS.scale);
    log(scaleTable(scale));
    const bounded = await benchBoundedWork(SETTINGS.bounded);
    log(boundedTable(bounded));
    const batchWork = await benchBatchWork(SETTINGS.batchWork);
    log(batchWorkTable(batchWork));
    const projectionScale = await benchProjectionScale(SETTINGS.projectionScale);
    log(projectionScaleTable(projectionScale));
    // The scale mode's own figures need a MongoDB server (npm run test:mongo's FerretDB, or a real one).
    const mongoUrl = process.env['MONGODB_URL'];
    const mongo = mongoUrl ? await benchMongo(SETTINGS.mongo, mongoUrl, redis.url) : undefined;
    log(mongo ? mongoTable(mongo) : '\nscale mode (MongoDB): skipped, MONGODB_URL is not set');
    const goals = checkGoals({ readApi, refusalFlood, projection, writeSide, freshness, scale });
    log(goalsTable(goals));
    const seconds = Math.round((performance.now() - started) / 1000);
    log(`\ndone in ${seconds} s\n`);
    log(JSON.stringify({
      quick, seconds, machine: { ...machine, load_average_at_end: loadAverage() },
      read_api: readApi, refusal_flood: refusalFlood, mcp, projection, write_side: writeSide, freshness, scale, bounded, batch_work: batchWork, projection_scale: projectionScale, mongo, goals,
    }));
  }
} finally {
  await load.close();
  await redis.stop();
}
