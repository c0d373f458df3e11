/**
 * Our public app built with parts of its chain left out, for bench/chain-cost.ts (timed) and
 * bench/chain-instructions.ts (counted under callgrind), over one read model and clock:
 * - `full`: metrics, limits, answer cache, the request log middleware at warn (it runs, writes nothing);
 * - `no-metrics`, `no-limits`, `bare` (front door and answer cache only), `full-redis` (limits through Redis);
 * - `logged`: `full` with a request log line for every request, written by `createLogger`'s destination to /dev/null;
 * - `logged-sync`: the same, written by a synchronous pino destination as before issue 42, a write per line.
 */
import { createServer, type Server } from 'node:http';
import { pino, type Logger } from 'pino';
import type { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { publicBrand } from '../../shared/brand.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { createPublicApp } from '../../read-api/app.ts';
import { createMetricsRegistry, metricsMiddleware, rateLimitMetrics } from '../../read-api/ops/metrics.ts';
import { createRateLimits } from '../../read-api/rate-limit/rate-limits.ts';
import { readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';
import { confirmAgain } from '../../test/support/confirm-again.ts';
import { listenOnLoopback } from './listen.ts';
import { BENCH_SETTINGS } from './our-server.ts';

export const CHAIN_VARIANTS = ['full', 'no-metrics', 'no-limits', 'bare', 'full-redis', 'logged', 'logged-sync'] as const;
export type ChainVariant = (typeof CHAIN_VARIANTS)[number];
export const isChainVariant = (name: string): name is ChainVariant => (CHAIN_VARIANTS as readonly string[]).includes(name);

export interface ChainSetting {
  readStore: ReadStore;
  clock: PolledReadModelClock;
  config: Config;
  /** At warn: what every variant but the logged ones is given. */
  logger: Logger;
  /** For `full-redis`: the limits' Redis, set by the caller that starts one. */
  redis?: Redis;
}

/**
 * The clock and settings every variant shares. `pollMs`: how often the clock reads the store; under callgrind a
 * poll every few milliseconds of wall time would be counted in the requests, so the counting bench polls rarely (the
 * benchmark settings keep a confirmation fresh for a year, so verifications are answered all the same).
 */
export async function chainSetting(readStore: ReadStore, pollMs: number): Promise<ChainSetting> {
  const config = loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...BENCH_SETTINGS });
  const clock = await startReadModelClock(() => readSnapshotStates(readStore), {
    intervalMs: pollMs, maxLagMs: config.READ_MODEL_MAX_LAG_SECONDS * 1_000, freshAnswerMaxLagMs: config.VERIFY_MAX_LAG_SECONDS * 1_000,
  });
  // A confirmation the clock sees happen, as beside a live projector (our-server.ts).
  await confirmAgain(readStore);
  await clock.refresh();
  const logger = pino({ level: 'warn', name: 'chain-cost' }, pino.destination(2));
  return { readStore, clock, config, logger };
}

/** One variant of our chain, listening on a free loopback port. */
export async function startChainVariant(variant: ChainVariant, setting: ChainSetting): Promise<{ server: Server; url: string }> {
  const { readStore, clock, config, logger, redis } = setting;
  const registry = createMetricsRegistry();
  const limited = variant !== 'no-limits' && variant !== 'bare';
  const rateLimits = limited
    ? createRateLimits({ config, logger, metrics: rateLimitMetrics(registry), ...(variant === 'full-redis' && redis ? { redis } : {}) })
    : undefined;
  const app = createPublicApp({
    readStore, clock, config, brand: publicBrand(config), health: () => 'ok',
    logger: variant === 'logged' ? createLogger('info', 'chain-cost', '/dev/null')
      : variant === 'logged-sync' ? pino({ level: 'info', name: 'chain-cost' }, pino.destination('/dev/null')) : logger,
    ...(variant === 'no-metrics' || variant === 'bare' ? {} : { metrics: metricsMiddleware(registry) }),
    ...(rateLimits ? { rateLimits } : {}),
  });
  const server = createServer(app.callback());
  return { server, url: await listenOnLoopback(server) };
}
