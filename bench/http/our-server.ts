/**
 * Our read API as it runs in production: `startReadApi` (front door, rate limits, metrics, the operations,
 * discovery routes) over the given read store, on a free loopback port, with limits too high to trip so that the
 * benchmark measures their cost and never their refusals.
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../../shared/config/config.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { publicBrand } from '../../shared/brand.ts';
import { discoveryRoutes } from '../../read-api/discovery/discovery-routes.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { connectRateLimitRedis } from '../../read-api/rate-limit/rate-limit-redis.ts';
import { startReadApi } from '../../read-api/server.ts';
import { testSigningKeys } from '../../test/support/signing-keys.ts';
import { confirmAgain } from '../../test/support/confirm-again.ts';

/** Limits too high to trip, and a freshness bound no run outlasts: what every benchmarked server is started with. */
export const BENCH_SETTINGS = {
  RATE_LIMIT_PER_MINUTE: '1000000000',
  VERIFY_RATE_LIMIT_PER_MINUTE: '1000000000',
  VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000000',
  FILE_RATE_LIMIT_PER_MINUTE: '1000000000',
  // No projector runs beside a benchmark's read model to confirm it again (`confirmAgain` stands in for one, once, at
  // the start): what it saw must not age past the bounds within the run, or verifications would be refused (503)
  // and measured as such.
  READ_MODEL_MAX_LAG_SECONDS: '31536000',
  VERIFY_MAX_LAG_SECONDS: '31536000',
} as const;

export interface OurServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `redisUrl` shares the rate limits through that Redis, as `REDIS_URL` does; in-process limits without it. `env`
 * overrides settings (the limits, TRUST_PROXY) for a flood of refusals.
 */
export async function startOurServer(readStore: ReadStore, redisUrl?: string, env: Record<string, string> = {}): Promise<OurServer> {
  const config = loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...BENCH_SETTINGS, ...env });
  // A fresh key and its history given as at scale, so that the benchmark writes no key file.
  const signingKeys = await testSigningKeys();
  const logger = pino({ level: 'warn', name: 'bench-read-api' }, pino.destination(2));
  const redis = redisUrl ? connectRateLimitRedis(redisUrl, logger) : undefined;
  if (redis) await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const running = await startReadApi({
    config, logger, readStore,
    brand: publicBrand(config),
    signingKeys,
    // As the all-in-one server does over its in-memory store (all-in-one.ts).
    positionPollMs: 5,
    extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks })],
    ...(redis ? { rateLimitRedis: redis } : {}),
  });
  // A confirmation the server sees happen: the registry is fresh, as beside a live projector.
  await confirmAgain(readStore);
  await running.refreshReadModels();
  return {
    url: `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`,
    close: async () => {
      await running.close();
      redis?.disconnect();
    },
  };
}
