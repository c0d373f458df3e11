/** Types for the two limiter classes inside koa-ratelimit v6 (its own typings only cover the middleware). */
declare module 'koa-ratelimit/limiter/memory.js' {
  interface MemoryLimiterOptions { id: string; db: Map<string, unknown>; max: number; duration: number; namespace: string }
  /** `reset` in Unix seconds (fractional); `remaining` counts this call only from the second call of a window on. */
  export default class MemoryLimiter {
    constructor(options: MemoryLimiterOptions);
    get(): Promise<{ remaining: number; reset: number; total: number }>;
  }
}

declare module 'koa-ratelimit/limiter/redis.js' {
  import type { Redis } from 'ioredis';
  interface RedisLimiterOptions { id: string; db: Redis; max: number; duration: number; namespace: string }
  /** Sliding window in a sorted set; `reset` in whole Unix seconds (rounded down); `remaining` before this call. */
  export default class RedisLimiter {
    constructor(options: RedisLimiterOptions);
    get(): Promise<{ remaining: number; reset: number; total: number }>;
  }
}
