/**
 * Where the time of a public GET goes inside the Koa chain: `node --import tsx bench/chain-cost.ts [targets]
 * [variants] [seconds] [rounds]`. Serves the demo read model with the public app built with parts of the chain left
 * out, beside the limit (http/limit-server.ts), and prints the CPU time of this process per request for each, with
 * the load in its own process. CPU per request moves far less than requests/s when other processes share the
 * machine. Variants: those of our chain (http/chain-variants.ts: `full`, `logged`, `no-limits`...), the peer of the
 * read API section, Fastify + @fastify/rate-limit with the same limits: `peer` (its memory store), `peer-redis` (its
 * Redis store); and the floor of the client's stack (http/koa-floor.ts): `koa` (Koa alone sending the recorded
 * answer), `koa-ratelimit` (the same behind koa-ratelimit memory limiters, one per limit ours counts),
 * `koa-router-ratelimit` (the client's stack as issue 42 names it: Koa + @koa/router + koa-ratelimit). With a floor
 * among the variants, each row also gives the floor's CPU per request over its own, round by round, and the median
 * of those ratios.
 */
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { connectRateLimitRedis } from '../read-api/rate-limit/rate-limit-redis.ts';
import { startTestRedis, type TestRedis } from '../test/support/redis-server.ts';
import { demoReadModel } from './fixtures/demo-read-model.ts';
import { demoSample } from './fixtures/demo-store.ts';
import type { FastifyInstance } from 'fastify';
import { chainSetting, isChainVariant, startChainVariant } from './http/chain-variants.ts';
import { startFastifyPeer } from './http/fastify-peer.ts';
import { FLOOR_KINDS, isFloorKind, startKoaFloor } from './http/koa-floor.ts';
import { startLimitServer } from './http/limit-server.ts';
import { BENCH_SETTINGS } from './http/our-server.ts';
import { readApiTargets, recordAnswers } from './http/targets.ts';
import { startLoadClient } from './load/load-client.ts';
import { median, round } from './report/stats.ts';

const [targetList = 'detail,verify', variantList = 'full,no-metrics,no-limits,bare,full-redis', secondsArg = '1.5', roundsArg = '3'] = process.argv.slice(2);
const variants = variantList.split(',');
const seconds = Number(secondsArg);
const rounds = Number(roundsArg);

const readStore = await demoReadModel();
const setting = await chainSetting(readStore, 5);
const { clock } = setting;
let redisServer: TestRedis | undefined;
let redis: Redis | undefined;
if (variants.some((variant) => variant.endsWith('redis'))) {
  redisServer = await startTestRedis();
  const client = connectRateLimitRedis(redisServer.url, setting.logger);
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  redis = client;
  setting.redis = client;
}

const PEERS = ['peer', 'peer-redis'];
const urls = new Map<string, string>();
const servers: Server[] = [];
for (const variant of variants.filter((name) => !PEERS.includes(name) && !isFloorKind(name))) {
  if (!isChainVariant(variant)) throw new Error(`chain-cost: no variant ${variant}`);
  const ours = await startChainVariant(variant, setting);
  servers.push(ours.server);
  urls.set(variant, ours.url);
}
const targets = readApiTargets(demoSample()).filter((target) => targetList.split(',').includes(target.name));
const answers = await recordAnswers(urls.values().next().value!, targets);
const limit = await startLimitServer(answers);
urls.set('limit', limit.url);
const untrippable = Number(BENCH_SETTINGS.RATE_LIMIT_PER_MINUTE);
const peerLimits = { general: untrippable, verify: untrippable, verifyGlobal: untrippable };
for (const variant of variants.filter(isFloorKind)) {
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
  const floorName = FLOOR_KINDS.slice().reverse().find((name) => urls.has(name));
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
