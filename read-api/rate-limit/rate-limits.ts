/**
 * The public rate limits (docs/api.md, "Rate limits"), each a `koa-ratelimit` middleware with its own namespace:
 * every public request (`isPublicPath`), and every request asking for a signed answer whatever its path
 * ("Signed answers": signing is work), counts against the general per-IP limit, whatever its answer; a
 * verification also counts against the verification per-IP limit and then against a budget shared by all clients.
 * Every other request to the public port (the transparency log's tiles, checkpoints and keys, the discovery files,
 * /docs, a path that names nothing) counts against a limit of its own, per IP and far higher
 * (`FILE_RATE_LIMIT_PER_MINUTE`): those answers are cheap and cacheable, but no route is unlimited (issue 42, item 3).
 * So does MCP's protocol housekeeping (`initialize`, notifications, `ping`, the lists: mcp/mcp-message.ts), whose
 * body is read first to tell; a tool call counts against the general limit as the operation it runs (issue 44, item 3).
 *
 * koa-ratelimit decides; this module picks its driver and shapes what it sends to the contract:
 * - the memory driver in one process; with Redis, the Redis driver, so every API process shares the windows;
 * - with Redis, one round trip per request for all the limits it counts (one-trip-redis.ts): a verification's
 *   general limit is sent with its two verification limits, each counted only if the one before let it through;
 * - while Redis cannot decide a request (connection down, or no answer within the client's 100 ms command
 *   timeout), the memory driver decides that request and every one for the next second (mode `degraded`); then
 *   Redis is asked again. The memory windows only count what was decided in memory, so an outage starts them afresh;
 * - `X-RateLimit-Reset` in whole seconds, `Retry-After` between 1 and the window, the 429 body in JSON.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Redis } from 'ioredis';
import ratelimit, { type RateLimitOptions, type RateLimitRefusal } from 'koa-ratelimit';
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { JSON_TYPE } from '../middleware/front-door.ts';
import { requestClientKey } from './client-ip.ts';
import { OneTripRedisDb, Trip, type FollowingLimit } from './one-trip-redis.ts';
import { isPublicPath } from './public-path.ts';
import { WindowMap } from './window-map.ts';
import { isMcpHousekeeping, MCP_ROUTE_PATH } from '../mcp/mcp-message.ts';

export type LimitName = 'general' | 'verify' | 'verify_global' | 'files';
export type RateLimitMode = 'redis' | 'memory' | 'degraded';

/** Told of every refused request, e.g. to count it in the metrics. */
export interface RateLimitMetrics {
  rejected(limit: LimitName): void;
}

export interface RateLimitDeps {
  config: Pick<Config,
    'TRUST_PROXY' | 'RATE_LIMIT_PER_MINUTE' | 'VERIFY_RATE_LIMIT_PER_MINUTE' | 'VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE' | 'FILE_RATE_LIMIT_PER_MINUTE'>;
  /** A client made by `connectRateLimitRedis` (no offline queue, short command timeout); memory limits without it. */
  redis?: Redis;
  logger: Logger;
  metrics?: RateLimitMetrics;
}

export interface RateLimits {
  /**
   * Mount app-wide: public paths and signing requests count against the general limit, every other request (MCP's
   * housekeeping included) against the files limit.
   */
  general: Middleware;
  /** Mount on the verification route only, after `general`: per-IP verification limit, then the global budget. */
  verify: Middleware;
  /**
   * `redis` while limits are shared through Redis; `degraded` from a request Redis could not decide (or a lost
   * connection) until Redis decides one again; `memory` without Redis.
   */
  mode(): RateLimitMode;
}

const WINDOW_MS = 60_000;
const WINDOW_SECONDS = WINDOW_MS / 1000;
/** After Redis failed to decide a request, how long requests are decided in memory before Redis is asked again. */
const RETRY_REDIS_AFTER_MS = 1_000;
/** The figures' headers, named in lower case as Node indexes them (cache/conditional-answer.ts). */
const [LIMIT, REMAINING, RESET] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
const FIGURES = [LIMIT, REMAINING, RESET] as const;
/** The reset as koa-ratelimit's Redis driver names it in the headers of its refusal. */
const DRIVER_RESET = 'X-RateLimit-Reset';

interface LimitSpec {
  name: LimitName;
  namespace: string;
  max: number;
  id(ctx: Context): string;
  /** `on-refusal`: a passed request keeps the figures of the limit before (a client's headers speak of its own limit). */
  figures: 'always' | 'on-refusal';
  /** The first limit of a request: the limits the request will count after it, asked of Redis in the same trip. */
  following?(ctx: Context): readonly FollowingLimit[];
}

/**
 * A GET the router surely sends to the verification route (`/api/public/verify/:serial`, any case, trailing slash
 * optional: see routes.ts), so its verification limits can go to Redis with its general one. A narrower test than
 * the router's (HEAD and odd spellings are left out) only costs those requests a round trip per limit.
 */
const VERIFICATION = /^\/api\/public\/verify\/[A-Za-z0-9-]+\/?$/i;
const TRIP = 'rateLimitTrip';

export function createRateLimits({ config, redis, logger, metrics }: RateLimitDeps): RateLimits {
  const clientKey = requestClientKey(config);
  const link = redis ? redisLink(redis, logger) : undefined;
  const limit = (spec: LimitSpec) => limitMiddleware(spec, link, metrics);
  const byClient = (ctx: Context) => clientKey(ctx.req);

  const perIpSpec: LimitSpec = { name: 'verify', namespace: 'rl:verify', max: config.VERIFY_RATE_LIMIT_PER_MINUTE, id: byClient, figures: 'always' };
  const globalSpec: LimitSpec = {
    name: 'verify_global', namespace: 'rl:verify-global', max: config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE, id: () => 'all', figures: 'on-refusal',
  };
  const ahead = (spec: LimitSpec, ctx: Context): FollowingLimit => ({ key: `${spec.namespace}:${spec.id(ctx)}`, duration: WINDOW_MS, max: spec.max });
  const general = limit({
    name: 'general', namespace: 'rl:general', max: config.RATE_LIMIT_PER_MINUTE, id: byClient, figures: 'always',
    following: (ctx) => (ctx.method === 'GET' && VERIFICATION.test(ctx.path) ? [ahead(perIpSpec, ctx), ahead(globalSpec, ctx)] : []),
  });
  const perIpVerify = limit(perIpSpec);
  const globalVerify = limit(globalSpec);
  const files = limit({ name: 'files', namespace: 'rl:files', max: config.FILE_RATE_LIMIT_PER_MINUTE, id: byClient, figures: 'always' });

  return {
    general: (ctx, next) => {
      if (ctx.req.headers['accept-signature'] !== undefined) return general(ctx, next);
      if (!isPublicPath(ctx.path)) return files(ctx, next);
      if (!MCP_ROUTE_PATH.test(ctx.path)) return general(ctx, next);
      return isMcpHousekeeping(ctx).then((housekeeping) => (housekeeping ? files : general)(ctx, next));
    },
    // The global budget counts only verifications the client's own limit let through.
    verify: (ctx, next) => perIpVerify(ctx, () => globalVerify(ctx, next)),
    mode: () => (link === undefined ? 'memory' : link.healthy() ? 'redis' : 'degraded'),
  };
}

/** The state of the Redis connection as the limits see it. */
interface RedisLink {
  client: Redis;
  /** What koa-ratelimit's Redis driver talks to: the client, one round trip per request. */
  db: OneTripRedisDb;
  /** Worth asking: connected, and no failure within the last second. A lost connection degrades the limits. */
  usable(): boolean;
  /** Connected, and the last request asked was decided. */
  healthy(): boolean;
  failed(error: unknown): void;
  answered(): void;
}

function redisLink(client: Redis, logger: Logger): RedisLink {
  let retryAt = 0;
  let degraded = false;
  const degrade = (error: unknown) => {
    if (degraded) return;
    degraded = true;
    logger.warn({ err: error }, 'rate limits: Redis cannot decide, deciding in this process until it answers again');
  };
  return {
    client,
    db: new OneTripRedisDb(client),
    usable: () => {
      if (client.status === 'ready') return Date.now() >= retryAt;
      degrade(new Error(`redis connection is ${client.status}`));
      return false;
    },
    healthy: () => client.status === 'ready' && !degraded,
    failed(error) {
      retryAt = Date.now() + RETRY_REDIS_AFTER_MS;
      degrade(error);
    },
    answered() {
      if (!degraded) return;
      degraded = false;
      logger.info('rate limits: Redis answers again, limits are shared again');
    },
  };
}

function limitMiddleware(spec: LimitSpec, link: RedisLink | undefined, metrics: RateLimitMetrics | undefined): Middleware {
  const options = {
    duration: WINDOW_MS,
    max: spec.max,
    namespace: spec.namespace,
    id: spec.id,
    // Serialized once: a flood of refusals costs no JSON per request. Sent as JSON by `refused`.
    errorMessage: Buffer.from(JSON.stringify({ detail: `Rate limit exceeded: ${spec.max} per 1 minute` })),
    ...(metrics ? { onLimited: () => metrics.rejected(spec.name) } : {}),
  };
  // The memory driver's figures are written here from the window it just decided on (`disableHeader`): once, in
  // whole seconds, and not at all on a passed request that keeps the figures of the limit before.
  const windows = new WindowMap(WINDOW_MS);
  const memory = ratelimit({ ...options, driver: 'memory', db: windows, disableHeader: true } satisfies RateLimitOptions);
  const shared = link ? ratelimit({ ...options, driver: 'redis', db: link.db } satisfies RateLimitOptions) : undefined;
  const limitText = String(spec.max);

  const inMemory = async (ctx: Context, next: Next) => {
    let passed = false;
    const decided = memory(ctx, () => {
      passed = true;
      if (spec.figures === 'always') showFigures(ctx, limitText, window.remaining > 0 ? window.remaining - 1 : 0, window.reset);
      return next();
    });
    // koa-ratelimit looks its window up synchronously when called, and reads it again once it has decided.
    const window = windows.touched as MemoryWindow;
    await decided;
    if (!passed) {
      showFigures(ctx, limitText, 0, window.reset);
      refused(ctx, window.reset);
    }
  };

  if (shared === undefined) return inMemory;
  return async (ctx: Context, next: Next) => {
    // A limit whose reply came with the request's first limit uses it, even if Redis failed another request since.
    const trip = tripOf(ctx, spec);
    if (!(trip?.replies.size || link!.usable())) return inMemory(ctx, next);
    const before = spec.figures === 'on-refusal' ? FIGURES.map((name) => ctx.res.getHeader(name)) : undefined;
    let passed = false;
    const onward = () => {
      passed = true;
      if (before !== undefined) FIGURES.forEach((name, i) => ctx.res.setHeader(name, String(before[i])));
      return next();
    };
    try {
      link!.db.use(trip);
      const decided = shared(ctx, onward);
      link!.db.use(undefined);
      await decided;
      link!.answered();
    } catch (error) {
      // An error from further down the chain is not the limiter's: it goes up as it is.
      if (passed) throw error;
      link!.failed(error);
      return inMemory(ctx, next);
    }
    if (!passed) shapeRefusal(ctx);
  };
}

/** What the memory driver keeps per window (koa-ratelimit's memory limiter). */
interface MemoryWindow {
  remaining: number;
  /** Unix seconds, with a fraction. */
  reset: number;
}

function showFigures(ctx: Context, limit: string, remaining: number, reset: number): void {
  const res = ctx.res;
  res.setHeader(LIMIT, limit);
  res.setHeader(REMAINING, String(remaining));
  res.setHeader(RESET, String(Math.floor(reset)));
}

/**
 * A refusal's `Retry-After` and type. koa-ratelimit truncates `Retry-After` towards zero, so it says 0 in the
 * window's last second; it must say at least 1, and never more than the window, counted from the exact reset time.
 */
function refused(ctx: Context, reset: number): void {
  ctx.res.setHeader('Retry-After', String(Math.min(WINDOW_SECONDS, Math.max(1, Math.ceil(reset - Date.now() / 1000)))));
  ctx.res.setHeader('Content-Type', JSON_TYPE);
}

/** The request's trip to Redis: started by its first limit (with the limits to follow), joined by the later ones. */
function tripOf(ctx: Context, spec: LimitSpec): Trip | undefined {
  if (spec.following === undefined) return ctx.state[TRIP] as Trip | undefined;
  const following = spec.following(ctx);
  if (following.length === 0) return undefined;
  const trip = new Trip(following);
  ctx.state[TRIP] = trip;
  return trip;
}

/** The Redis driver's refusal: its reset in whole seconds, and `Retry-After` as the contract wants it. */
function shapeRefusal(ctx: Context): void {
  const refusal = ctx.state['rateLimit'] as RateLimitRefusal | undefined;
  const reset = refusal?.headers[DRIVER_RESET];
  if (reset === undefined) {
    ctx.res.setHeader('Content-Type', JSON_TYPE);
    return;
  }
  ctx.res.setHeader(RESET, String(Math.floor(reset)));
  refused(ctx, reset);
}
