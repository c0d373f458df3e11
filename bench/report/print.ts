/** The human-readable report: one table per section and the goals; the JSON line is printed by run.ts. */
import type { FreshnessFigures, LagFigures } from '../sections/freshness.bench.ts';
import type { MongoFigures } from '../sections/mongodb.bench.ts';
import type { ProjectionFigures } from '../sections/projection.bench.ts';
import type { ReadApiFigures } from '../sections/read-api.bench.ts';
import type { RefusalFloodFigures } from '../sections/refusal-flood.bench.ts';
import type { ScaleFigures, SizeFigures } from '../sections/scale.bench.ts';
import type { BoundedResult } from '../sections/bounded-work.bench.ts';
import type { WriteSideFigures } from '../sections/write-side.bench.ts';
import type { Goal } from './goals.ts';
import { table } from './table.ts';

export function readApiTable(figures: ReadApiFigures): string {
  const rows = Object.entries(figures.operations).map(([name, op]) => {
    const s = op.servers;
    return [
      name, s.ours_memory.rps, s.ours_redis.rps, s.limit.rps, s.peer_memory.rps, s.peer_redis.rps,
      `${s.ours_memory.p50_ms}/${s.ours_memory.p99_ms}`, `${s.ours_redis.p50_ms}/${s.ours_redis.p99_ms}`,
      op.ratios.memory_vs_limit, op.ratios.memory_vs_peer, op.ratios.redis_vs_limit, op.ratios.redis_vs_peer,
    ];
  });
  return table(
    `Read API (req/s and p50/p99 ms, medians of ${figures.settings.rounds} rounds of ${figures.settings.roundSeconds}s, ${figures.settings.connections} connections; `
      + `peer: Fastify + @fastify/rate-limit, its memory store / its Redis store; failures: ${figures.failures})`,
    ['operation', 'ours', 'ours+redis', 'limit', 'peer', 'peer+redis', 'ours p50/99', 'redis p50/99', 'ours/limit', 'ours/peer', 'redis/limit', 'redis/peer'],
    rows,
  );
}

export function refusalFloodTable(figures: RefusalFloodFigures): string {
  const s = figures.servers;
  return table(
    `Flood of refusals: ${figures.target} from ${figures.addresses} client addresses through a trusted loopback proxy, every one over its limit (req/s, 429 share; failures: ${figures.failures})`,
    ['limits', 'ours', 'peer', 'ours/peer', 'ours CPU µs/req', 'peer CPU µs/req', 'peer/ours CPU', 'ours 429 share', 'peer 429 share'],
    [
      ['memory', s.ours_memory.rps, s.peer_memory.rps, figures.ratios.memory_vs_peer, s.ours_memory.cpu_us_per_request, s.peer_memory.cpu_us_per_request,
        figures.ratios.memory_cpu_peer_vs_ours, s.ours_memory.refused_share, s.peer_memory.refused_share],
      ['Redis', s.ours_redis.rps, s.peer_redis.rps, figures.ratios.redis_vs_peer, s.ours_redis.cpu_us_per_request, s.peer_redis.cpu_us_per_request,
        figures.ratios.redis_cpu_peer_vs_ours, s.ours_redis.refused_share, s.peer_redis.refused_share],
    ],
  );
}

export function projectionTable(figures: ProjectionFigures): string {
  return table(`Projection rebuild over ${figures.events} events (${JSON.stringify(figures.mix)})`, ['figure', 'value'], [
    ['rebuild events/s', figures.rebuild_events_per_s],
    ['bare read+decode events/s (limit)', figures.bare_events_per_s],
    ['adapter readAll events/s (validated)', figures.adapter_read_events_per_s],
    ['rebuild / bare', figures.rebuild_vs_bare],
    ['rebuild seconds', figures.rebuild_seconds],
    ['rebuild peak RSS MB', figures.rebuild_peak_rss_mb],
    ['bare peak RSS MB', figures.bare_peak_rss_mb],
  ]);
}

export function writeSideTable(figures: WriteSideFigures): string {
  return table(`Write side: ${figures.commands} serial registrations`, ['figure', 'value'], [
    ['commands/s', figures.commands_per_s], ['bare inserts/s', figures.bare_inserts_per_s], ['commands / bare', figures.commands_vs_bare],
  ]);
}

export function freshnessTable(figures: FreshnessFigures): string {
  const row = (name: string, lag: LagFigures) => [name, lag.p50_ms, lag.p99_ms, lag.max_ms, lag.misses];
  return table(`Freshness: ack to visible through the API, ${figures.commands} commands per mode (ms)`, ['mode / change', 'p50', 'p99', 'max', 'misses'], [
    row('embedded / serial -> verify', figures.embedded.verify), row('embedded / price -> detail', figures.embedded.detail),
    row('embedded / all', figures.embedded.all), row('bullmq / serial -> verify', figures.bullmq.verify),
    row('bullmq / price -> detail', figures.bullmq.detail), row('bullmq / all', figures.bullmq.all),
  ]);
}

export function scaleTable(figures: ScaleFigures): string {
  const rows = (name: string, sizes: SizeFigures[]) => sizes.map((size) => [name, size.size, size.p50_ms, size.p99_ms]);
  return table('Scale: one query without HTTP or answer cache (ms)', ['query', 'size', 'p50', 'p99'], [
    ...rows('catalogue, after a write', figures.catalogue_cold), ...rows('catalogue, repeated', figures.catalogue_warm),
    ...rows('verify', figures.verify),
  ]);
}

export function boundedTable(result: BoundedResult): string {
  return table('Bounded work: one search, one price change through the watches and collections projections (ms)',
    ['watches', 'search p50', 'search p99', 'search CPU p50', 'price change p50', 'price change p99', 'price change CPU p50', 'heap per watch (KB)'],
    result.sizes.map((size) => [
      size.size, size.search_p50_ms, size.search_p99_ms, size.search_cpu_p50_ms,
      size.price_change_p50_ms, size.price_change_p99_ms, size.price_change_cpu_p50_ms, size.heap_per_watch_kb ?? '',
    ]));
}

export function mongoTable(figures: MongoFigures): string {
  const fresh = figures.freshness_bullmq_mongodb;
  return table(`Scale mode on ${figures.engine} (${figures.events} events)`, ['figure', 'value', 'goal', 'met'], [
    ['projection into MongoDB (events/s)', figures.projection_events_per_s, '', ''],
    [`freshness via BullMQ + MongoDB, p50 / p99 (ms, ${fresh.commands} commands)`, `${fresh.p50_ms} / ${fresh.p99_ms}`, 'p99 < 100', fresh.p99_ms < 100 ? 'yes' : 'NO'],
    [`rebuild into MongoDB (events/s${figures.rebuild_switched ? '' : ', up to the refused switch'})`, figures.rebuild_events_per_s, '', ''],
    ['bare read-and-decode loop (events/s)', figures.bare_read_decode_events_per_s, '', ''],
    ['rebuild / bare loop', figures.rebuild_vs_bare, '>= 0.3', figures.rebuild_vs_bare >= 0.3 ? 'yes' : 'NO'],
  ]);
}

export function goalsTable(goals: Record<string, Goal>): string {
  return table('Goals', ['goal', 'figure', 'met'], Object.values(goals).map((goal) => [goal.goal, goal.worst, goal.met ? 'yes' : 'NO']));
}
