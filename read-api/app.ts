/**
 * The public HTTP application: the seven operations of docs/api.md over a read store, with rate limits and
 * discovery routes plugged in by their own modules. Every public request goes through this one chain, in order:
 * metrics (outermost, so they see every final status), the request log line, front door (headers, unparsable targets, errors, and last
 * the answer's signature, so it signs what the client receives), the JSON-RPC shape of a refused MCP request
 * (mcp/mcp-refusal.ts), general rate limit (public paths, and every request asking for a signature), answer cache
 * (a repeated GET ends here), the operations, allowed methods, the MCP endpoint (mcp/mcp-route.ts), extra routes.
 */
import Koa from 'koa';
import type { Config } from '../shared/config/config.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import { createAnswerCache } from './cache/answer-cache.ts';
import { frontDoor } from './middleware/front-door.ts';
import { requestLog } from './middleware/request-log.ts';
import type { AnswerSigner } from './signing/sign-answers.ts';
import { publicOperationHandlers, publicOperations } from '../shared/read-model/public-api/operations/index.ts';
import type { HealthProbe, OperationEnv, PublicBrand } from '../shared/read-model/public-api/operations/public-operation.ts';
import { mcpEndpoint } from './mcp/mcp-endpoint.ts';
import { mcpRefusals } from './mcp/mcp-refusal.ts';
import { requestClientKey } from './rate-limit/client-ip.ts';
import type { ReadModelClock } from '../shared/read-model/public-api/read-model-clock.ts';
import { canonicalAnswerCache, publicRouter } from './routes.ts';

export interface PublicAppDeps {
  readStore: ReadStore;
  clock: ReadModelClock;
  config: Config;
  logger: Logger;
  health: HealthProbe;
  brand: PublicBrand;
  /** General limit (public paths and signing requests, see rate-limit/rate-limits.ts) and the verification limit. None when absent. */
  rateLimits?: { general: Koa.Middleware; verify: Koa.Middleware };
  /** Routes served beside the operations (discovery files, /docs). */
  extraRoutes?: Koa.Middleware[];
  /** Outermost middleware, e.g. request metrics, so that it sees every final status. */
  metrics?: Koa.Middleware;
  /** Signs answers on request (signing/sign-answers.ts), run by the front door on the final answer. */
  signing?: AnswerSigner;
  /** Largest number of cached GET answers, per canonical request and per URL (default 2000 each); bytes: config's ANSWER_CACHE_MAX_BYTES. */
  cacheEntries?: number;
  /** The time answers say (answer-policy.ts, `now`): the wall clock by default. */
  now?: () => Date;
  /** A serial's status proved in the serial index (verify's `proof=index`); none where absent. */
  serialIndex?: OperationEnv['serialIndex'];
}

export function createPublicApp(deps: PublicAppDeps): Koa {
  // Koa's `proxy` would believe X-Forwarded-For from any peer: left off, and ctx.ip unused (see rate-limit/client-ip.ts).
  const app = new Koa({ proxy: false });
  const env = {
    readStore: deps.readStore, clock: deps.clock, config: deps.config, health: deps.health, brand: deps.brand,
    operations: publicOperations, ...(deps.now ? { now: deps.now } : {}), ...(deps.serialIndex ? { serialIndex: deps.serialIndex } : {}),
  };
  const bounds = { maxBytes: deps.config.ANSWER_CACHE_MAX_BYTES, ...(deps.cacheEntries ? { maxEntries: deps.cacheEntries } : {}) };
  const answers = createAnswerCache({ clientKey: requestClientKey(deps.config), ...bounds });
  const router = publicRouter(publicOperationHandlers, env, {
    cache: canonicalAnswerCache(bounds),
    answers,
    ...(deps.rateLimits ? { verifyLimit: deps.rateLimits.verify } : {}),
  });
  if (deps.metrics) app.use(deps.metrics);
  app.use(requestLog(deps.logger, deps.config.REQUEST_LOG_SAMPLE));
  app.use(frontDoor(deps.logger, deps.signing));
  if (deps.rateLimits) {
    // In front of the limits: a refused request to /mcp is answered in JSON-RPC.
    app.use(mcpRefusals);
    app.use(deps.rateLimits.general);
  }
  app.use(answers.middleware);
  app.use(mcpEndpoint({
    operations: publicOperationHandlers, env, logger: deps.logger, ...(deps.rateLimits ? { verifyLimit: deps.rateLimits.verify } : {}),
    ...(deps.cacheEntries ? { cacheEntries: deps.cacheEntries } : {}),
  }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  for (const route of deps.extraRoutes ?? []) app.use(route);
  return app;
}
