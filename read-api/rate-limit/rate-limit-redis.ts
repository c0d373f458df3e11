/**
 * The Redis client for rate limits. ioredis defaults would queue commands while Redis is down and retry them for
 * seconds, making every request hang and then fail; here a command is refused at once when the connection is not
 * ready and times out quickly otherwise, so the limits fall back to memory instead (see window-counter.ts).
 */
import { Redis } from 'ioredis';
import type { Logger } from '../../shared/logging/logger.ts';

export function connectRateLimitRedis(url: string, logger: Logger): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: 75,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    // Reconnect quickly so shared limits come back soon after Redis does.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Outages are reported once by the limiter; without a listener ioredis would print every reconnection error.
  client.on('error', (error: Error) => logger.debug({ err: error }, 'rate-limit redis connection error'));
  return client;
}
