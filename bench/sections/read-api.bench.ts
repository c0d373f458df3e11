/**
 * Read API throughput and latency per operation: ours (in-memory limits, then Redis limits) against the limit
 * (bare node:http, precomputed bytes) and the peer (Fastify + @fastify/rate-limit, memory store, then Redis store),
 * all serving the same bytes and headers from the same data with the same limits. Every pair is warmed up first,
 * the five servers take turns within every round (in a rotating order, so none always runs first), and each figure
 * is the median of the rounds.
 */
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { LoadClient } from '../load/load-client.ts';
import type { LoadResult } from '../load/load-protocol.ts';
import { connectRateLimitRedis } from '../../read-api/rate-limit/rate-limit-redis.ts';
import { demoReadModel } from '../fixtures/demo-read-model.ts';
import { demoSample } from '../fixtures/demo-store.ts';
import { startFastifyPeer } from '../http/fastify-peer.ts';
import { startLimitServer } from '../http/limit-server.ts';
import { startOurServer, BENCH_SETTINGS } from '../http/our-server.ts';
import { readApiTargets, recordAnswers, type Target } from '../http/targets.ts';
import { median, ratio, round } from '../report/stats.ts';

export interface ReadApiSettings {
  warmupSeconds: number;
  roundSeconds: number;
  rounds: number;
  connections: number;
}

const SERVERS = ['ours_memory', 'ours_redis', 'limit', 'peer_memory', 'peer_redis'] as const;
type ServerName = (typeof SERVERS)[number];

export interface LoadFigures { rps: number; p50_ms: number; p99_ms: number }

export interface OperationFigures {
  servers: Record<ServerName, LoadFigures>;
  ratios: { memory_vs_limit: number; memory_vs_peer: number; redis_vs_limit: number; redis_vs_peer: number };
  bytes: number;
}

export interface ReadApiFigures {
  settings: ReadApiSettings;
  operations: Record<string, OperationFigures>;
  /** Answers other than 2xx or transport errors over every measured run: must be 0 for the figures to mean anything. */
  failures: number;
}

const UNTRIPPABLE = Number(BENCH_SETTINGS.RATE_LIMIT_PER_MINUTE);
const PEER_LIMITS = { general: UNTRIPPABLE, verify: UNTRIPPABLE, verifyGlobal: UNTRIPPABLE };

export async function benchReadApi(settings: ReadApiSettings, load: LoadClient, redisUrl: string): Promise<ReadApiFigures> {
  const readStore = await demoReadModel();
  const ours = await startOurServer(readStore);
  const oursRedis = await startOurServer(readStore, redisUrl);
  const targets = readApiTargets(demoSample());
  const answers = await recordAnswers(ours.url, targets);
  const limit = await startLimitServer(answers);
  const peerRedisClient = await readyRedis(redisUrl);
  const peer = await startFastifyPeer(answers, { limits: PEER_LIMITS });
  const peerRedis = await startFastifyPeer(answers, { limits: PEER_LIMITS, redis: peerRedisClient });
  const urls: Record<ServerName, string> = {
    ours_memory: ours.url, ours_redis: oursRedis.url, limit: limit.url, peer_memory: peer.url, peer_redis: peerRedis.url,
  };
  let failures = 0;
  const measure = async (target: Target, server: ServerName, seconds: number): Promise<LoadResult> => {
    const result = await load.run({
      url: urls[server] + target.url,
      method: target.method,
      ...(target.body === undefined ? {} : { body: target.body, headers: { 'content-type': 'application/json' } }),
      connections: settings.connections,
      seconds,
    });
    failures += result.non2xx + result.errors;
    return result;
  };

  try {
    for (const target of targets) for (const server of SERVERS) await measure(target, server, settings.warmupSeconds);
    failures = 0;
    const samples = new Map<string, LoadResult[]>();
    for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
      for (const [targetIndex, target] of targets.entries()) {
        for (let turn = 0; turn < SERVERS.length; turn += 1) {
          const server = SERVERS[(turn + roundIndex + targetIndex) % SERVERS.length]!;
          const key = `${target.name}/${server}`;
          samples.set(key, [...(samples.get(key) ?? []), await measure(target, server, settings.roundSeconds)]);
        }
      }
    }
    const operations: Record<string, OperationFigures> = {};
    for (const [index, target] of targets.entries()) {
      const figures = Object.fromEntries(SERVERS.map((server) => [server, summarize(samples.get(`${target.name}/${server}`) ?? [])])) as Record<ServerName, LoadFigures>;
      operations[target.name] = {
        servers: figures,
        ratios: {
          memory_vs_limit: ratio(figures.ours_memory.rps, figures.limit.rps),
          memory_vs_peer: ratio(figures.ours_memory.rps, figures.peer_memory.rps),
          redis_vs_limit: ratio(figures.ours_redis.rps, figures.limit.rps),
          redis_vs_peer: ratio(figures.ours_redis.rps, figures.peer_redis.rps),
        },
        bytes: answers[index]!.bytes.length,
      };
    }
    return { settings, operations, failures };
  } finally {
    await ours.close();
    await oursRedis.close();
    await new Promise((resolve) => limit.server.close(resolve));
    await peer.app.close();
    await peerRedis.app.close();
    peerRedisClient.disconnect();
    await readStore.close();
  }
}

/** A Redis client configured as ours (rate-limit/rate-limit-redis.ts), once connected. */
export async function readyRedis(url: string): Promise<Redis> {
  const client = connectRateLimitRedis(url, pino({ level: 'warn' }, pino.destination(2)));
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  return client;
}

function summarize(results: readonly LoadResult[]): LoadFigures {
  return {
    rps: round(median(results.map((r) => r.rps))),
    p50_ms: round(median(results.map((r) => r.p50)), 2),
    p99_ms: round(median(results.map((r) => r.p99)), 2),
  };
}
