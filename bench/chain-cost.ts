/**
 * Where the time of a public GET goes inside the Koa chain: `node --import tsx bench/chain-cost.ts [targets]
 * [variants] [seconds] [rounds]`. Serves the demo read model with the public app built with parts of the chain left
 * out, beside the limit (http/limit-server.ts), and prints the CPU time of this process per request for each, with
 * the load in its own process. CPU per request moves far less than requests/s when other processes share the
 * machine. Variants: `full` (metrics, limits, answer cache), `no-metrics`, `no-limits`, `bare` (front door and
 * answer cache only), `full-redis` (limits through Redis), `logged` (`full` with a request log line for every request,
 * written by `createLogger`'s destination to /dev/null), `logged-sync` (the same, written by a synchronous pino
 * destination as before issue 42, a write per line), and the peer of the read API section, Fastify +
 * @fastify/rate-limit with the same limits: `peer` (its memory store), `peer-redis` (its Redis store); and the
 * floor of the client's stack (http/koa-floor.ts): `koa` (Koa alone sending the recorded answer), `koa-ratelimit`
 * (the same behind koa-ratelimit memory limiters, one per limit ours counts), `koa-router-ratelimit` (the client's
 * stack as issue 42 names it: Koa + @koa/router + koa-ratelimit). With a floor among the variants, each row also gives
 * the floor's CPU per request over its own, round by round, and the median of those ratios.
 */
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { loadConfig } from '../shared/config/config.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { publicBrand } from '../shared/brand.ts';
import { createPublicApp } from '../read-api/app.ts';
import { createMetricsRegistry, metricsMiddleware, rateLimitMetrics } from '../read-api/ops/metrics.ts';
import { connectRateLimitRedis } from '../read-api/rate-limit/rate-limit-redis.ts';
import { createRateLimits } from '../read-api/rate-limit/rate-limits.ts';
import { readSnapshotStates } from '../shared/read-model/projections/projection-states.ts';
import { startReadModelClock } from '../shared/read-model/public-api/read-model-clock.ts';
import { startTestRedis, type TestRedis } from '../test/support/redis-server.ts';
import { demoReadModel } from './fixtures/demo-read-model.ts';
import { demoSample } from './fixtures/demo-store.ts';
import type { FastifyInstance } from 'fastify';
import { startFastifyPeer } from './http/fastify-peer.ts';
import { type FloorKind, startKoaFloor } from './http/koa-floor.ts';
import { startLimitServer } from './http/limit-server.ts';
import { listenOnLoopback } from './http/listen.ts';
import { BENCH_SETTINGS } from './http/our-server.ts';
import { readApiTargets, recordAnswers } from './http/targets.ts';
import { startLoadClient } from './load/load-client.ts';
import { median, round } from './report/stats.ts';
import { confirmAgain } from '../test/support/confirm-again.ts';

const [targetList = 'detail,verify', variantList = 'full,no-metrics,no-limits,bare,full-redis', secondsArg = '1.5', roundsArg = '3'] = process.argv.slice(2);
const variants = variantList.split(',');
const seconds = Number(secondsArg);
const rounds = Number(roundsArg);

const readStore = await demoReadModel();
const config = loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...BENCH_SETTINGS });
const logger = pino({ level: 'warn', name: 'chain-cost' }, pino.destination(2));
const clock = await startReadModelClock(() => readSnapshotStates(readStore), {
  intervalMs: 5, maxLagMs: config.READ_MODEL_MAX_LAG_SECONDS * 1_000, freshAnswerMaxLagMs: config.VERIFY_MAX_LAG_SECONDS * 1_000,
});
// A confirmation the clock sees happen, as beside a live projector (our-server.ts).
await confirmAgain(readStore);
await clock.refresh();
let redisServer: TestRedis | undefined;
let redis: Redis | undefined;
if (variants.some((variant) => variant.endsWith('redis'))) {
  redisServer = await startTestRedis();
  const client = connectRateLimitRedis(redisServer.url, logger);
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  redis = client;
}

const PEERS = ['peer', 'peer-redis'];
const FLOORS: FloorKind[] = ['koa', 'koa-ratelimit', 'koa-router-ratelimit'];
const isFloor = (name: string): name is FloorKind => (FLOORS as string[]).includes(name);
const urls = new Map<string, string>();
const servers: Server[] = [];
for (const variant of variants.filter((name) => !PEERS.includes(name) && !isFloor(name))) {
  const registry = createMetricsRegistry();
  const limited = variant !== 'no-limits' && variant !== 'bare';
  const rateLimits = limited
    ? createRateLimits({ config, logger, metrics: rateLimitMetrics(registry), ...(variant === 'full-redis' && redis ? { redis } : {}) })
    : undefined;
  const app = createPublicApp({
    readStore, clock, config, brand: publicBrand(config), health: () => 'ok',
    // `full` keeps the level at warn, so its request log middleware runs but writes nothing.
    logger: variant === 'logged' ? createLogger('info', 'chain-cost', '/dev/null')
      : variant === 'logged-sync' ? pino({ level: 'info', name: 'chain-cost' }, pino.destination('/dev/null')) : logger,
    ...(variant === 'no-metrics' || variant === 'bare' ? {} : { metrics: metricsMiddleware(registry) }),
    ...(rateLimits ? { rateLimits } : {}),
  });
  const server = createServer(app.callback());
  servers.push(server);
  urls.set(variant, await listenOnLoopback(server));
}
const targets = readApiTargets(demoSample()).filter((target) => targetList.split(',').includes(target.name));
const answers = await recordAnswers(urls.values().next().value!, targets);
const limit = await startLimitServer(answers);
urls.set('limit', limit.url);
const untrippable = Number(BENCH_SETTINGS.RATE_LIMIT_PER_MINUTE);
const peerLimits = { general: untrippable, verify: untrippable, verifyGlobal: untrippable };
for (const variant of variants.filter(isFloor)) {
  const floor = await startKoaFloor(answers, variant);
  servers.push(floor.server);
  urls.set(variant, floor.url);
}
const peers: FastifyInstance[] = [];
for (const variant of variants.filter((name) => PEERS.includes(name))) {
  const peer = await startFastifyPeer(answers, { limits: peerLimits, ...(variant === 'peer-redis' && redis ? { redis } : {}) });
  peers.push(peer.app);
  urls.set(variant, peer.url);
}

const load = startLoadClient();
const samples = new Map<string, { cpu: number[]; rps: number[] }>();
try {
  for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
    for (const target of targets) {
      for (const [name, url] of urls) {
        const job = { url: url + target.url, method: target.method, connections: 10 };
        if (roundIndex === 0) await load.run({ ...job, seconds: 0.3 });
        const before = process.cpuUsage();
        const result = await load.run({ ...job, seconds });
        const used = process.cpuUsage(before);
        if (result.non2xx + result.errors > 0) throw new Error(`${target.name} on ${name}: ${result.non2xx + result.errors} failures`);
        const key = `${target.name} ${name}`;
        const sample = samples.get(key) ?? { cpu: [], rps: [] };
        sample.cpu.push((used.user + used.system) / result.requests);
        sample.rps.push(result.rps);
        samples.set(key, sample);
      }
    }
  }
  // Beside the floor of the client's stack, when it ran: floor/variant per round, the two measured one after the other,
  // then their median (a ratio of medians would pair a quiet round of one with a busy round of the other).
  const floorName = FLOORS.slice().reverse().find((name) => urls.has(name));
  process.stdout.write(`target / server               CPU µs per request   requests/s${floorName ? `   ${floorName}/this, by round` : ''}\n`);
  for (const [key, sample] of samples) {
    const floor = floorName ? samples.get(`${key.slice(0, key.indexOf(' '))} ${floorName}`) : undefined;
    const paired = floor ? round(median(sample.cpu.map((cpu, index) => floor.cpu[index]! / cpu)), 2) : undefined;
    process.stdout.write(`${key.padEnd(30)}${String(round(median(sample.cpu), 1)).padStart(18)}${String(round(median(sample.rps))).padStart(13)}${paired === undefined ? '' : String(paired).padStart(10)}\n`);
  }
} finally {
  await load.close();
  clock.stop();
  for (const peer of peers) await peer.close();
  for (const server of [...servers, limit.server]) {
    server.closeAllConnections();
    server.close();
  }
  redis?.disconnect();
  await redisServer?.stop();
  await readStore.close();
}
