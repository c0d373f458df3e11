/**
 * The public options of `koa-ratelimit` 6 (it ships no types; `@types/koa-ratelimit` would pull ioredis 4's), as
 * far as this service uses them. See its README and index.js.
 */
declare module 'koa-ratelimit' {
  import type { Context, Middleware } from 'koa';

  /** What the Redis driver calls on `db`: an ioredis client, or anything offering the same two methods. */
  export interface RedisDb {
    defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  }

  interface CommonOptions {
    /** Window length in milliseconds. */
    duration: number;
    max: number;
    /** Key prefix of this limiter's windows. */
    namespace: string;
    /** The key a request counts under; `false` lets it through uncounted. */
    id(ctx: Context): string | false;
    /** The body of a refusal (an object is sent as JSON). */
    errorMessage?: unknown;
    /** Sends no `X-RateLimit-*` figures (a refusal still sets `Retry-After`, its body and `ctx.state.rateLimit`). */
    disableHeader?: boolean;
    /** Called on every refusal, after the 429 is set. */
    onLimited?(ctx: Context): void;
  }

  export type RateLimitOptions =
    | (CommonOptions & { driver: 'memory'; db: Map<unknown, unknown> })
    | (CommonOptions & { driver: 'redis'; db: RedisDb });

  /**
   * Set on `ctx.state.rateLimit` by a refusal; `headers` holds the figures it sent, as numbers, by header name
   * (`X-RateLimit-Reset` in Unix seconds, with a fraction from the memory driver).
   */
  export interface RateLimitRefusal {
    after: number;
    headers: Record<string, number>;
    id: string;
    message: unknown;
  }

  export default function ratelimit(options: RateLimitOptions): Middleware;
}
