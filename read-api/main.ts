/**
 * The read API alone (`npm run start:api`): public app and operations port over the configured read store
 * (MongoDB when MONGODB_URL is set), rate limits shared through Redis when REDIS_URL is set. A composition root:
 * it alone picks adapters. SIGTERM/SIGINT stop accepting, finish the requests in flight, then close the store.
 */
import { loadConfig } from '../shared/config/config.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { createReadStore } from '../shared/adapters/read-store.factory.ts';
import { DEMO_BRAND } from '../services/demo/brand.ts';
import { connectRateLimitRedis } from './rate-limit/rate-limit-redis.ts';
import { startReadApi } from './server.ts';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL, 'read-api');
const readStore = await createReadStore(config);
const redis = config.REDIS_URL ? connectRateLimitRedis(config.REDIS_URL, logger) : undefined;
const api = await startReadApi({
  config,
  logger,
  readStore,
  brand: {
    name: DEMO_BRAND.name, tagline: DEMO_BRAND.tagline, country: DEMO_BRAND.country, founded: DEMO_BRAND.founded,
    website: config.PUBLIC_BASE_URL,
  },
  ...(redis ? { rateLimitRedis: redis } : {}),
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'read API stopping');
  await api.close();
  redis?.disconnect();
  await readStore.close();
  logger.info('read API stopped');
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    shutdown(signal).then(() => process.exit(0), (error: unknown) => {
      logger.error({ err: error }, 'read API did not stop cleanly');
      process.exit(1);
    });
  });
}
