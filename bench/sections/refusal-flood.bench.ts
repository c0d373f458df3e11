/**
 * A flood of refusals (issue 22): GETs of a detail page from many client addresses, each already over its general
 * limit, through a trusted loopback proxy (TRUST_PROXY / Fastify's `trustProxy`, `X-Forwarded-For` rotating over
 * the addresses). Ours against the peer (Fastify + @fastify/rate-limit), memory limits and Redis limits; every
 * address is pushed over its limit by a warm-up before each measured run, so those runs are refusals only.
 */
import type { LoadClient } from '../load/load-client.ts';
import type { LoadResult } from '../load/load-protocol.ts';
import { demoReadModel } from '../fixtures/demo-read-model.ts';
import { demoSample } from '../fixtures/demo-store.ts';
import { startFastifyPeer } from '../http/fastify-peer.ts';
import { startOurServer } from '../http/our-server.ts';
import { readApiTargets, recordAnswers } from '../http/targets.ts';
import { median, ratio, round } from '../report/stats.ts';
import { readyRedis, type ReadApiSettings } from './read-api.bench.ts';

const SERVERS = ['ours_memory', 'ours_redis', 'peer_memory', 'peer_redis'] as const;
type ServerName = (typeof SERVERS)[number];
const ADDRESSES = 2048;
const TARGET = 'detail';
/** One request per minute and address: the warm-up spends it, every later request is refused. */
const LIMITS = { RATE_LIMIT_PER_MINUTE: '1', VERIFY_RATE_LIMIT_PER_MINUTE: '1', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1' };
const PROXY = '127.0.0.1';

export interface RefusalFloodFigures {
  target: string;
  addresses: number;
  servers: Record<ServerName, { rps: number; cpu_us_per_request: number; refused_share: number }>;
  /** Requests/s, ours over the peer's; and the peer's CPU per request over ours (above 1: ours costs less). */
  ratios: { memory_vs_peer: number; redis_vs_peer: number; memory_cpu_peer_vs_ours: number; redis_cpu_peer_vs_ours: number };
  /** Answers other than 429 in the measured rounds, and transport errors: must be 0. */
  failures: number;
}

export async function benchRefusalFlood(settings: ReadApiSettings, load: LoadClient, redisUrl: string): Promise<RefusalFloodFigures> {
  const readStore = await demoReadModel();
  const target = readApiTargets(demoSample()).find((candidate) => candidate.name === TARGET)!;
  // The answer is recorded from an untrippable server: the peer needs the bytes of a 200 for its route.
  const recorder = await startOurServer(readStore);
  const answers = await recordAnswers(recorder.url, [target]);
  await recorder.close();
  const env = { ...LIMITS, TRUST_PROXY: PROXY };
  const ours = await startOurServer(readStore, undefined, env);
  const oursRedis = await startOurServer(readStore, redisUrl, env);
  const peerRedisClient = await readyRedis(redisUrl);
  const limits = { general: 1, verify: 1, verifyGlobal: 1 };
  const peer = await startFastifyPeer(answers, { limits, trustProxy: PROXY });
  const peerRedis = await startFastifyPeer(answers, { limits, trustProxy: PROXY, redis: peerRedisClient });
  const urls: Record<ServerName, string> = { ours_memory: ours.url, ours_redis: oursRedis.url, peer_memory: peer.url, peer_redis: peerRedis.url };
  let failures = 0;
  const measure = (server: ServerName, seconds: number): Promise<LoadResult> => load.run({
    url: urls[server] + target.url, method: 'GET', connections: settings.connections, seconds, forwardedFor: ADDRESSES,
  });
  try {
    // Until every address has spent its one request: a warm-up run answered with refusals only (at most 10 runs).
    // Before every measured run, since a window ends a minute after it began and the address may then pass again.
    // Each run starts the rotation afresh, so a warm-up counts only if it went through every address.
    const spent = async (server: ServerName) => {
      for (let run = 0; run < 10; run += 1) {
        const warmup = await measure(server, 0.5);
        if (warmup.refused === warmup.requests && warmup.requests >= ADDRESSES) return;
      }
    };
    const samples = new Map<ServerName, (LoadResult & { cpuUs: number })[]>();
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      for (let turn = 0; turn < SERVERS.length; turn += 1) {
        const server = SERVERS[(turn + roundIndex) % SERVERS.length]!;
        await spent(server);
        // Every server runs in this process and only the measured one is loaded: its CPU per request moves far less
        // than requests/s when other processes share the machine.
        const cpuBefore = process.cpuUsage();
        const result = await measure(server, settings.roundSeconds);
        const cpu = process.cpuUsage(cpuBefore);
        failures += result.requests - result.refused + result.errors;
        samples.set(server, [...(samples.get(server) ?? []), { ...result, cpuUs: (cpu.user + cpu.system) / Math.max(1, result.requests) }]);
      }
    }
    const servers = Object.fromEntries(SERVERS.map((server) => {
      const results = samples.get(server) ?? [];
      return [server, {
        rps: round(median(results.map((r) => r.rps))),
        cpu_us_per_request: round(median(results.map((r) => r.cpuUs)), 1),
        refused_share: round(results.reduce((sum, r) => sum + r.refused, 0) / Math.max(1, results.reduce((sum, r) => sum + r.requests, 0)), 3),
      }];
    })) as RefusalFloodFigures['servers'];
    return {
      target: TARGET, addresses: ADDRESSES, servers, failures,
      ratios: {
        memory_vs_peer: ratio(servers.ours_memory.rps, servers.peer_memory.rps), redis_vs_peer: ratio(servers.ours_redis.rps, servers.peer_redis.rps),
        memory_cpu_peer_vs_ours: ratio(servers.peer_memory.cpu_us_per_request, servers.ours_memory.cpu_us_per_request),
        redis_cpu_peer_vs_ours: ratio(servers.peer_redis.cpu_us_per_request, servers.ours_redis.cpu_us_per_request),
      },
    };
  } finally {
    await ours.close();
    await oursRedis.close();
    await peer.app.close();
    await peerRedis.app.close();
    peerRedisClient.disconnect();
    await readStore.close();
  }
}
