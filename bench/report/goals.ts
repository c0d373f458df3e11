/** The goals of the benchmark issue, checked against the figures: each says its target and whether it is met. */
import type { FreshnessFigures } from '../sections/freshness.bench.ts';
import type { ProjectionFigures } from '../sections/projection.bench.ts';
import type { ReadApiFigures } from '../sections/read-api.bench.ts';
import type { RefusalFloodFigures } from '../sections/refusal-flood.bench.ts';
import type { ScaleFigures } from '../sections/scale.bench.ts';
import type { WriteSideFigures } from '../sections/write-side.bench.ts';

export interface Goal { goal: string; met: boolean; worst: number }

export function checkGoals(figures: {
  readApi: ReadApiFigures; refusalFlood: RefusalFloodFigures; projection: ProjectionFigures; writeSide: WriteSideFigures; freshness: FreshnessFigures; scale: ScaleFigures;
}): Record<string, Goal> {
  const sublinear = (growth: { size_ratio: number; time_ratio: number }) => growth.time_ratio < growth.size_ratio;
  return {
    ...readApiGoals(figures.readApi, figures.refusalFlood),
    projection: { goal: 'rebuild >= 0.3 of the bare read-and-decode loop', met: figures.projection.rebuild_vs_bare >= 0.3, worst: figures.projection.rebuild_vs_bare },
    write_side: { goal: 'commands >= 0.5 of bare inserts', met: figures.writeSide.commands_vs_bare >= 0.5, worst: figures.writeSide.commands_vs_bare },
    freshness_embedded: { goal: 'p99 < 50 ms embedded', met: figures.freshness.embedded.all.p99_ms < 50, worst: figures.freshness.embedded.all.p99_ms },
    freshness_bullmq: { goal: 'p99 < 250 ms through BullMQ', met: figures.freshness.bullmq.all.p99_ms < 250, worst: figures.freshness.bullmq.all.p99_ms },
    scale_catalogue: {
      goal: 'uncached catalogue query grows sub-linearly with the watches', met: sublinear(figures.scale.catalogue_cold_growth),
      worst: figures.scale.catalogue_cold_growth.time_ratio,
    },
    scale_verify: { goal: 'verification grows sub-linearly with the serials', met: sublinear(figures.scale.verify_growth), worst: figures.scale.verify_growth.time_ratio },
  };
}

/**
 * The read API's goals: against the limit per limit driver (issue 11), against Fastify + @fastify/rate-limit with
 * the same limits on the same store kind (issue 22: 1.0, floor 0.85), and the flood of refusals against the peer's.
 */
export function readApiGoals(readApi: ReadApiFigures, flood?: RefusalFloodFigures): Record<string, Goal> {
  const gets = Object.entries(readApi.operations).filter(([name]) => name !== 'price').map(([, op]) => op.ratios);
  const worst = (of: (ratios: (typeof gets)[number]) => number[]) => Math.min(...gets.flatMap(of));
  const memory = worst((r) => [r.memory_vs_limit]);
  const redis = worst((r) => [r.redis_vs_limit]);
  const peerMemory = worst((r) => [r.memory_vs_peer]);
  const peerRedis = worst((r) => [r.redis_vs_peer]);
  const peer = Math.min(peerMemory, peerRedis);
  const floodWorst = flood ? Math.min(flood.ratios.memory_vs_peer, flood.ratios.redis_vs_peer) : Number.NaN;
  return {
    read_api_memory_vs_limit: { goal: 'ours/limit >= 0.75 on every GET, memory limits', met: memory >= 0.75, worst: memory },
    read_api_redis_vs_limit: { goal: 'ours/limit >= 0.5 on every GET, Redis limits', met: redis >= 0.5, worst: redis },
    read_api_vs_peer_memory: { goal: 'ours/peer >= 1.0 on every GET, memory limits', met: peerMemory >= 1, worst: peerMemory },
    read_api_vs_peer_redis: { goal: 'ours/peer >= 1.0 on every GET, Redis limits', met: peerRedis >= 1, worst: peerRedis },
    read_api_vs_peer_floor: { goal: 'ours/peer >= 0.85 on every GET (floor), memory and Redis limits', met: peer >= 0.85, worst: peer },
    ...(flood ? { refusal_flood_vs_peer: { goal: 'flood of refusals: ours/peer >= 1.0, memory and Redis limits', met: floodWorst >= 1, worst: floodWorst } } : {}),
  };
}
