/**
 * The public HTTP application: the seven operations of CONTRACT.md over a read store, with rate limits and
 * discovery routes plugged in by their own modules. Middleware chain, shortest first: front door (headers, errors),
 * general rate limit (on /api/public/* only), the operations, allowed methods, extra routes.
 */
import Koa from 'koa';
import type { Config } from '../shared/config/config.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import { ResponseCache } from './cache/response-cache.ts';
import { frontDoor } from './middleware/front-door.ts';
import { publicOperationHandlers, publicOperations } from './operations/index.ts';
import type { HealthProbe, PublicBrand } from './operations/public-operation.ts';
import type { ReadModelClock } from './read-model-clock.ts';
import { publicRouter, type RouteOptions } from './routes.ts';

export interface PublicAppDeps {
  readStore: ReadStore;
  clock: ReadModelClock;
  config: Config;
  logger: Logger;
  health: HealthProbe;
  brand: PublicBrand;
  /** General limit (applied to every /api/public/* request) and the verification limit. None when absent. */
  rateLimits?: { general: Koa.Middleware; verify: Koa.Middleware };
  /** Routes served beside the operations (discovery files, /docs). */
  extraRoutes?: Koa.Middleware[];
  /** Outermost middleware, e.g. request metrics, so that it sees every final status. */
  metrics?: Koa.Middleware;
  /** Largest number of cached GET answers (default 2000). */
  cacheEntries?: number;
  /** Where GET answers are recorded for the answer replay in front of Koa (cache/answer-replay.ts). */
  replay?: RouteOptions['replay'];
}

const PUBLIC_PREFIX = '/api/public/';

export function createPublicApp(deps: PublicAppDeps): Koa {
  // Koa's `proxy` would believe X-Forwarded-For from any peer: left off, and ctx.ip unused (see rate-limit/client-ip.ts).
  const app = new Koa({ proxy: false });
  const env = {
    readStore: deps.readStore, clock: deps.clock, config: deps.config, health: deps.health, brand: deps.brand,
    operations: publicOperations,
  };
  const router = publicRouter(publicOperationHandlers, env, {
    cache: new ResponseCache(deps.cacheEntries),
    ...(deps.rateLimits ? { verifyLimit: deps.rateLimits.verify } : {}),
    ...(deps.replay ? { replay: deps.replay } : {}),
  });
  if (deps.metrics) app.use(deps.metrics);
  app.use(frontDoor(deps.logger));
  const general = deps.rateLimits?.general;
  if (general) app.use((ctx, next) => (ctx.path.startsWith(PUBLIC_PREFIX) ? general(ctx, next) : next()));
  app.use(router.routes());
  app.use(router.allowedMethods());
  for (const route of deps.extraRoutes ?? []) app.use(route);
  return app;
}
