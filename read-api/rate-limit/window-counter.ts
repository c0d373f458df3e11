/**
 * Counts requests per limit and key in windows that start with a key's first hit. Every decision is made in this
 * process, at once when it can:
 * - without Redis, from this process's own counts;
 * - with Redis (shared by every API process), a hit is let through locally while the budget is far from spent and
 *   sent to Redis with the other hits of the next 5 ms in one pipelined round trip, so busy keys cost no round
 *   trip per request. The first hit of a key in a window, and every hit in the last tenth of a budget, wait for
 *   Redis instead, which adds them only if they still fit: a fresh client's count comes from the shared window, and
 *   refusals are exact across processes. Hits let through by other processes show up here within 5 ms, so far
 *   from the limit a client spread over P processes is seen late by at most what they let through in that time.
 * While Redis is down or slow, counting carries on here from what was known (mode `degraded`), no request waits
 * more than 100 ms, and the hits counted meanwhile are sent once Redis is back (tried at most once a
 * second). A batch whose reply times out is sent again later: a hit may then count twice, never zero times.
 */
import type { Logger } from '../../shared/logging/logger.ts';
import type { RedisWindows, WindowTotal } from './redis-windows.ts';

export type RateLimitMode = 'redis' | 'memory' | 'degraded';

export interface WindowLimit {
  /** Key prefix: limits with distinct namespaces count separately. */
  namespace: string;
  max: number;
  durationMs: number;
}

export interface WindowCount {
  /** Refused: the window's budget was already spent. */
  limited: boolean;
  /** Calls left in the window after this one. */
  remaining: number;
  /** Unix seconds (whole, rounded up) when the window frees up. */
  resetAt: number;
}

interface Window {
  readonly id: string;
  readonly limit: WindowLimit;
  /** Epoch milliseconds when the window ends. */
  resetAt: number;
  /** Hits in the window as last known: Redis's total with Redis, this process's own count without. */
  known: number;
  /** Let through here, not yet sent to Redis. */
  pending: number;
  /** Sent to Redis, reply not in yet. */
  sending: number;
  /** Redis has told this process the window's total at least once. */
  synced: boolean;
}

const RETRY_REDIS_AFTER_MS = 1_000;
/** Longest wait for Redis before counting here. */
const REDIS_DEADLINE_MS = 100;
/** Hits let through locally reach Redis within this time. */
const SYNC_MS = 5;
const SWEEP_EVERY_MS = 60_000;

export class WindowCounter {
  readonly #windows = new Map<string, Window>();
  /** Windows with pending hits. */
  readonly #dirty = new Set<Window>();
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;
  #retryRedisAt = 0;
  #degraded = false;
  #nextSweep = 0;

  constructor(
    private readonly redis: RedisWindows | undefined,
    private readonly logger: Logger,
  ) {}

  mode(): RateLimitMode {
    if (!this.redis) return 'memory';
    return this.#redisUsable(Date.now()) ? 'redis' : 'degraded';
  }

  /** Counts one hit: synchronously when decided here, a promise when the hit waits for Redis. */
  count(limit: WindowLimit, key: string): WindowCount | Promise<WindowCount> {
    const now = Date.now();
    const window = this.#window(limit, key, now);
    const used = window.known + window.sending + window.pending;
    if (used >= limit.max) return refused(window);
    if (this.redis) {
      if (this.#redisUsable(now)) {
        if (!window.synced || used + 1 > limit.max - Math.ceil(limit.max / 10)) return this.#ask(window);
      } else if (!this.redis.ready) {
        // Only a connection that is down pushes the next try back; hits during the pause must not, or a busy API
        // would never go back to Redis.
        this.#degrade(new Error(`redis connection is ${this.redis.status}`));
      }
    }
    return this.#countHere(window);
  }

  #countHere(window: Window): WindowCount {
    if (this.redis) {
      window.pending += 1;
      this.#dirty.add(window);
      this.#scheduleFlush(SYNC_MS);
    } else {
      window.known += 1;
    }
    return granted(window);
  }

  #window(limit: WindowLimit, key: string, now: number): Window {
    const id = `${limit.namespace}:${key}`;
    const current = this.#windows.get(id);
    if (current !== undefined && now < current.resetAt) return current;
    this.#sweep(now);
    const fresh: Window = { id, limit, resetAt: now + limit.durationMs, known: 0, pending: 0, sending: 0, synced: false };
    this.#windows.set(id, fresh);
    if (current !== undefined) this.#dirty.delete(current);
    return fresh;
  }

  async #ask(window: Window): Promise<WindowCount> {
    const add = window.pending;
    window.pending = 0;
    this.#dirty.delete(window);
    // The asked hit counts as in flight, so hits decided meanwhile see it.
    window.sending += add + 1;
    let reply: WindowTotal | undefined;
    try {
      [reply] = await withDeadline(this.redis!.send([hitsOf(window, add, true)]), REDIS_DEADLINE_MS);
    } catch (error) {
      this.#degrade(error);
    }
    window.sending -= add + 1;
    if (reply === undefined) {
      window.pending += add;
      return this.#countHere(window);
    }
    this.#recovered();
    this.#learn(window, reply);
    return reply.granted ? granted(window) : refused(window);
  }

  /** Sends what is still pending (if Redis answers) and stops syncing; counting goes on in this process. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    await this.#flushing;
    if (this.#dirty.size > 0) await this.#flush();
  }

  #scheduleFlush(delayMs: number): void {
    if (this.#flushTimer !== undefined || this.#flushing !== undefined || this.#closed) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#flushing = this.#flush().finally(() => {
        this.#flushing = undefined;
        if (this.#dirty.size > 0) this.#scheduleFlush(SYNC_MS);
      });
    }, delayMs);
    this.#flushTimer.unref();
  }

  async #flush(): Promise<void> {
    const now = Date.now();
    if (!this.#redisUsable(now)) {
      this.#scheduleFlush(Math.max(this.#retryRedisAt - now, SYNC_MS));
      return;
    }
    // Hits of windows that ended meanwhile are dropped: they belong to a window nobody counts any more.
    const batch = [...this.#dirty].filter((window) => window.resetAt > now);
    this.#dirty.clear();
    if (batch.length === 0) return;
    const adds = batch.map((window) => {
      const add = window.pending;
      window.pending = 0;
      window.sending += add;
      return add;
    });
    try {
      const replies = await withDeadline(this.redis!.send(batch.map((window, i) => hitsOf(window, adds[i]!, false))), REDIS_DEADLINE_MS);
      batch.forEach((window, i) => {
        window.sending -= adds[i]!;
        this.#learn(window, replies[i]!);
      });
      this.#recovered();
    } catch (error) {
      batch.forEach((window, i) => {
        window.sending -= adds[i]!;
        window.pending += adds[i]!;
        this.#dirty.add(window);
      });
      this.#degrade(error);
    }
  }

  /** Redis's total includes every hit sent before this reply (one connection answers in order), none sent after. */
  #learn(window: Window, reply: WindowTotal): void {
    window.known = reply.total;
    window.resetAt = Date.now() + reply.ttlMs;
    window.synced = true;
  }

  #redisUsable(now: number): boolean {
    return this.redis !== undefined && this.redis.ready && now >= this.#retryRedisAt;
  }

  #degrade(error: unknown): void {
    this.#retryRedisAt = Date.now() + RETRY_REDIS_AFTER_MS;
    if (this.#degraded) return;
    this.#degraded = true;
    this.logger.warn({ err: error }, 'rate limits: Redis unavailable, counting in this process until it returns');
  }

  #recovered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.logger.info('rate limits: Redis is back, limits are shared again');
  }

  /** Windows of clients gone quiet are forgotten now and then, so the map does not grow with every address seen. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const [id, window] of this.#windows) {
      if (window.resetAt <= now && window.pending === 0 && window.sending === 0) this.#windows.delete(id);
    }
  }
}

function hitsOf(window: Window, add: number, ask: boolean) {
  return { id: window.id, add, ask, max: window.limit.max, durationMs: window.limit.durationMs };
}

function granted(window: Window): WindowCount {
  const used = window.known + window.sending + window.pending;
  return { limited: false, remaining: Math.max(window.limit.max - used, 0), resetAt: Math.ceil(window.resetAt / 1000) };
}

function refused(window: Window): WindowCount {
  return { limited: true, remaining: 0, resetAt: Math.ceil(window.resetAt / 1000) };
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
