/**
 * Redis connections (ioredis) with settings that never hang a caller for good, and that reconnect for as long
 * as Redis is away.
 *
 * - `bullmq`: for BullMQ queues and workers. BullMQ requires `maxRetriesPerRequest: null` (a worker's blocking
 *   commands must survive a reconnect), so commands wait for Redis to come back instead of failing: an `add` made
 *   during an outage is delivered once Redis is back, not lost.
 * - `subscriber`: a pub/sub subscription, set up as for BullMQ: its subscribe waits for Redis to come back.
 * - `client`: for plain commands (rate limits, caches): a short connect and command timeout and no offline queue,
 *   so a command fails fast while Redis is down and the caller can fall back. That includes the moment before the
 *   first connection is ready: wait for the client's `ready` event before relying on it.
 */
import { Redis, type RedisOptions } from 'ioredis';

type RedisPurpose = 'bullmq' | 'subscriber' | 'client';

/** Retry every 100 ms at first, backing off to every 2 s, and never give up. */
const retryStrategy = (times: number): number => Math.min(100 * times, 2_000);

function redisOptions(purpose: RedisPurpose): RedisOptions {
  const common: RedisOptions = { retryStrategy, connectionName: `watchcat-${purpose}`, connectTimeout: 2_000 };
  if (purpose !== 'client') return { ...common, maxRetriesPerRequest: null };
  return { ...common, commandTimeout: 1_000, maxRetriesPerRequest: 1, enableOfflineQueue: false };
}

/** A connection to `url` (`redis://[user:password@]host:port[/db]`) set up for `purpose`. */
export function createRedisClient(url: string, purpose: RedisPurpose): Redis {
  return new Redis(url, redisOptions(purpose));
}
