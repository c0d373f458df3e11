/**
 * The public rate limits (CONTRACT.md, "Rate limits"): every `/api/public/*` request counts against the general
 * per-IP limit, whatever its answer; a verification also counts against the verification per-IP limit and then
 * against a budget shared by all clients. Each limit has its own key namespace, so none counts a request twice.
 * The same decisions serve the Koa middleware and the answer replay in front of Koa (read-api/replay/).
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import type { Redis } from 'ioredis';
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { sendJsonBytes } from '../middleware/front-door.ts';
import { parseTrustedProxies } from '../../shared/net/trusted-proxies.ts';
import { clientIp, limitKey } from './client-ip.ts';
import { RedisWindows } from './redis-windows.ts';
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

/** One limit's verdict on one request. */
export interface LimitDecision {
  name: LimitName;
  max: number;
  count: WindowCount;
}

/** What a request may show of the limits: the figures of the last limit that counted it, and whether it refused. */
export interface Admission {
  decision: LimitDecision;
  refused: boolean;
}

type Maybe<T> = T | Promise<T>;

export interface RateLimits {
  /** Mount app-wide: it limits `/api/public/*` and lets everything else through uncounted. */
  general: Middleware;
  /** Mount on the verification route only, after `general`: per-IP verification limit, then the global budget. */
  verify: Middleware;
  /** Counts a public request, and a verification's limits too, as `general` then `verify` would. */
  admit(clientKey: string, verification: boolean): Maybe<Admission>;
  /** The key a request counts under: its client address (IPv6 by /64). */
  clientKey(req: IncomingMessage): string;
  /** `redis` while limits are shared through Redis, `degraded` while Redis is down, `memory` without Redis. */
  mode(): RateLimitMode;
  /** Sends the hits not yet shared to Redis; to call when the API stops. */
  close(): Promise<void>;
}

const MINUTE_MS = 60_000;
const PUBLIC_PREFIX = '/api/public/';

export function createRateLimits({ config, redis, logger, metrics }: RateLimitDeps): RateLimits {
  const counter = new WindowCounter(redis ? new RedisWindows(redis) : undefined, logger);
  const trusted = parseTrustedProxies(config.TRUST_PROXY);
  const clientKey = (req: IncomingMessage) =>
    limitKey(clientIp({ socketAddress: req.socket.remoteAddress, forwardedFor: req.headers['x-forwarded-for'] }, trusted));

  const limit = (name: LimitName, namespace: string, max: number) => {
    const window: WindowLimit = { namespace, max, durationMs: MINUTE_MS };
    return (key: string): Maybe<LimitDecision> => after(counter.count(window, key), (count) => {
      if (count.limited) metrics?.rejected(name);
      return { name, max, count };
    });
  };
  const general = limit('general', 'rl:general', config.RATE_LIMIT_PER_MINUTE);
  const perIpVerify = limit('verify', 'rl:verify', config.VERIFY_RATE_LIMIT_PER_MINUTE);
  const globalVerify = limit('verify_global', 'rl:verify-global', config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE);

  const admitVerification = (key: string): Maybe<Admission> => after(perIpVerify(key), (decision) => {
    if (decision.count.limited) return { decision, refused: true };
    // The global budget shows its figures only when it refuses: a client's headers speak of its own limit.
    return after(globalVerify('all'), (global) => (global.count.limited ? { decision: global, refused: true } : { decision, refused: false }));
  });

  const middleware = (admit: (ctx: Context) => Maybe<Admission>) => async (ctx: Context, next: Next) => {
    const admission = await admit(ctx);
    for (const [name, value] of admissionHeaders(admission)) ctx.set(name, value);
    if (!admission.refused) return next();
    sendJsonBytes(ctx, 429, refusalBody(admission.decision));
  };
  const generalMiddleware = middleware((ctx) => after(general(clientKey(ctx.req)), (decision) => ({ decision, refused: decision.count.limited })));

  return {
    general: (ctx, next) => (ctx.path.startsWith(PUBLIC_PREFIX) ? generalMiddleware(ctx, next) : next()),
    verify: middleware((ctx) => admitVerification(clientKey(ctx.req))),
    admit: (key, verification) => after(general(key), (decision) => {
      if (decision.count.limited || !verification) return { decision, refused: decision.count.limited };
      return admitVerification(key);
    }),
    clientKey,
    mode: () => counter.mode(),
    close: () => counter.close(),
  };
}

/** `X-RateLimit-*` figures, plus `Retry-After` on a refusal. */
export function admissionHeaders({ decision, refused }: Admission): [string, string][] {
  const headers: [string, string][] = [
    ['X-RateLimit-Limit', String(decision.max)],
    ['X-RateLimit-Remaining', String(decision.count.remaining)],
    ['X-RateLimit-Reset', String(decision.count.resetAt)],
  ];
  if (refused) headers.push(['Retry-After', String(Math.max(1, decision.count.resetAt - Math.floor(Date.now() / 1000)))]);
  return headers;
}

export function refusalBody(decision: LimitDecision): Buffer {
  return Buffer.from(JSON.stringify({ detail: `Rate limit exceeded: ${decision.max} per 1 minute` }));
}

function after<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
