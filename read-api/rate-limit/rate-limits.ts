/**
 * The public rate limits (CONTRACT.md, "Rate limits"): every `/api/public/*` request counts against the general
 * per-IP limit, whatever its answer; a verification also counts against the verification per-IP limit and then
 * against a budget shared by all clients. Each limit has its own key namespace, so none counts a request twice.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { clientIp, limitKey } from './client-ip.ts';
import { type RateLimitMode, type WindowCount, WindowCounter, type WindowLimit } from './window-counter.ts';

export type LimitName = 'general' | 'verify' | 'verify_global';

/** Told of every refused request, e.g. to count it in the metrics. */
export interface RateLimitMetrics {
  rejected(limit: LimitName): void;
}

export interface RateLimitDeps {
  config: Pick<Config, 'TRUST_PROXY' | 'RATE_LIMIT_PER_MINUTE' | 'VERIFY_RATE_LIMIT_PER_MINUTE' | 'VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE'>;
  /** A client made by `connectRateLimitRedis` (no offline queue, short command timeout); memory limits without it. */
  redis?: Redis;
  logger: Logger;
  metrics?: RateLimitMetrics;
}

export interface RateLimits {
  /** Mount app-wide: it limits `/api/public/*` and lets everything else through uncounted. */
  general: Middleware;
  /** Mount on the verification route only, after `general`: per-IP verification limit, then `globalVerify`. */
  verify: Middleware;
  /** The all-clients verification budget alone (already part of `verify`). */
  globalVerify: Middleware;
  /** `redis` while limits are shared through Redis, `degraded` while Redis is down, `memory` without Redis. */
  mode(): RateLimitMode;
}

const MINUTE_MS = 60_000;
const PUBLIC_PREFIX = '/api/public/';

export function createRateLimits({ config, redis, logger, metrics }: RateLimitDeps): RateLimits {
  const counter = new WindowCounter(redis, logger);
  const perIp = (ctx: Context) =>
    limitKey(clientIp({ socketAddress: ctx.req.socket.remoteAddress, forwardedFor: ctx.headers['x-forwarded-for'] }, config.TRUST_PROXY));

  const limiter = (name: LimitName, limit: WindowLimit, key: (ctx: Context) => string, showFigures: boolean) => {
    return async (ctx: Context, next: Next) => {
      const count = await counter.count(limit, key(ctx));
      if (showFigures || count.limited) setFigures(ctx, limit.max, count);
      if (!count.limited) return next();
      metrics?.rejected(name);
      refuse(ctx, limit.max, count);
    };
  };

  const general = limiter('general', { namespace: 'rl:general', max: config.RATE_LIMIT_PER_MINUTE, durationMs: MINUTE_MS }, perIp, true);
  const perIpVerify = limiter('verify', { namespace: 'rl:verify', max: config.VERIFY_RATE_LIMIT_PER_MINUTE, durationMs: MINUTE_MS }, perIp, true);
  // The global budget shows its figures only when it refuses: a client's headers speak of its own limit.
  const globalVerify = limiter(
    'verify_global', { namespace: 'rl:verify-global', max: config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE, durationMs: MINUTE_MS },
    () => 'all', false,
  );

  return {
    general: (ctx, next) => (ctx.path.startsWith(PUBLIC_PREFIX) ? general(ctx, next) : next()),
    verify: (ctx, next) => perIpVerify(ctx, () => globalVerify(ctx, next)),
    globalVerify,
    mode: () => counter.mode(),
  };
}

function setFigures(ctx: Context, max: number, count: WindowCount): void {
  ctx.set('X-RateLimit-Limit', String(max));
  ctx.set('X-RateLimit-Remaining', String(count.remaining));
  ctx.set('X-RateLimit-Reset', String(count.resetAt));
}

function refuse(ctx: Context, max: number, count: WindowCount): void {
  const retryAfter = Math.max(1, count.resetAt - Math.floor(Date.now() / 1000));
  ctx.status = 429;
  ctx.set('Retry-After', String(retryAfter));
  ctx.body = { detail: `Rate limit exceeded: ${max} per 1 minute` };
}
