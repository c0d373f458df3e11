/**
 * Counts requests per key and window with koa-ratelimit's own limiters: its Redis limiter (shared by every API
 * process) while Redis answers, its memory limiter (this process only) when Redis is down, slow or not configured.
 * No request ever waits on Redis for more than `redisDeadlineMs`: a disconnected client is not even asked (its
 * offline queue is off), a failed or slow call switches to memory at once, and Redis is tried again, at most once a
 * second, as soon as the client says it is ready.
 */
import type { Redis } from 'ioredis';
import MemoryLimiter from 'koa-ratelimit/limiter/memory.js';
import RedisLimiter from 'koa-ratelimit/limiter/redis.js';
import type { Logger } from '../../shared/logging/logger.ts';

export type RateLimitMode = 'redis' | 'memory' | 'degraded';

export interface WindowLimit {
  /** Key prefix: limiters with distinct namespaces count separately. */
  namespace: string;
  max: number;
  durationMs: number;
}

export interface WindowCount {
  /** Refused: the window's budget was already spent. */
  limited: boolean;
  /** Calls left in the window after this one. */
  remaining: number;
  /** Unix seconds (whole) when the window frees up a call. */
  resetAt: number;
}

const RETRY_REDIS_AFTER_MS = 1_000;

export class WindowCounter {
  private readonly memory = new Map<string, unknown>();
  private nextSweep = 0;
  private retryRedisAt = 0;
  private degraded = false;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly logger: Logger,
    private readonly redisDeadlineMs = 100,
  ) {}

  mode(): RateLimitMode {
    if (!this.redis) return 'memory';
    return this.redisUsable() ? 'redis' : 'degraded';
  }

  async count(limit: WindowLimit, key: string): Promise<WindowCount> {
    const options = { id: key, max: limit.max, duration: limit.durationMs, namespace: limit.namespace };
    if (this.redis && this.redisUsable()) {
      try {
        const state = await withDeadline(new RedisLimiter({ ...options, db: this.redis }).get(), this.redisDeadlineMs);
        this.recovered();
        // The Redis limiter rounds the reset down to the second: one more second never promises too early.
        return toCount(state.remaining, state.reset + 1);
      } catch (error) {
        this.degrade(error);
      }
    } else if (this.redis && this.redis.status !== 'ready') {
      // Only a connection that is down pushes the next try back; requests during the pause must not, or a busy
      // API would never go back to Redis.
      this.degrade(new Error(`redis connection is ${this.redis.status}`));
    }
    this.sweepMemory();
    const state = await new MemoryLimiter({ ...options, db: this.memory }).get();
    return toCount(state.remaining, Math.ceil(state.reset));
  }

  private redisUsable(): boolean {
    return this.redis?.status === 'ready' && Date.now() >= this.retryRedisAt;
  }

  private degrade(error: unknown): void {
    this.retryRedisAt = Date.now() + RETRY_REDIS_AFTER_MS;
    if (this.degraded) return;
    this.degraded = true;
    this.logger.warn({ err: error }, 'rate limits: Redis unavailable, counting in this process until it returns');
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.logger.info('rate limits: Redis is back, limits are shared again');
  }

  /** koa-ratelimit's memory limiter never forgets a key: drop the expired windows now and then. */
  private sweepMemory(): void {
    const now = Date.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + 60_000;
    for (const [key, entry] of this.memory) {
      if ((entry as { reset: number }).reset * 1000 < now) this.memory.delete(key);
    }
  }
}

/** koa-ratelimit lets a call through while `remaining` is above zero, and shows one less as what is left. */
function toCount(remaining: number, resetAt: number): WindowCount {
  return { limited: remaining <= 0, remaining: Math.max(remaining - 1, 0), resetAt };
}

async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
