/**
 * The Redis client for rate limits. ioredis defaults would queue commands while Redis is down and retry them for
 * seconds, making every request hang and then fail; here a command is refused at once when the connection is not
 * ready and dropped after 100 ms otherwise, so the limits decide in memory instead (see rate-limits.ts).
 * Auto-pipelining sends the commands of concurrent requests in one write.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../../shared/logging/logger.ts';

export function connectRateLimitRedis(url: string, logger: Logger): Redis {
  const client = new Redis(url, {
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    commandTimeout: 100,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    // Reconnect quickly so shared limits come back soon after Redis does.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Outages are reported once by the limits; without a listener ioredis would print every reconnection error.
  client.on('error', (error: Error) => logger.debug({ err: error }, 'rate-limit redis connection error'));
  return client;
}
