/**
 * The operations port: liveness, readiness and Prometheus metrics, on a port of their own so that neither the
 * public rate limits nor public clients reach them. Liveness and readiness say which process answers
 * (shared/process/process-identity.ts), so a neighbour on the same port cannot pass for this one.
 */
import Koa from 'koa';
import { Router } from '@koa/router';
import type { Registry } from 'prom-client';
import { PROCESS_IDENTITY } from '../../shared/process/process-identity.ts';

export interface Readiness {
  ready: boolean;
  /** What was checked and found, e.g. `{ read_store: 'ok', parked_projections: [...], shutting_down: false }`. */
  checks: Record<string, unknown>;
}

interface OpsAppDeps {
  /**
   * Not ready when the read store is unreachable, a projection is parked, not built or without a live owner, the
   * queue is unreachable while a read model is stale, or the process is shutting down.
   */
  readiness: () => Promise<Readiness>;
  registry: Registry;
  /** Further operator routes of the process (e.g. the embedded server's read-model audit). */
  extraRoutes?: Koa.Middleware[];
}

export function createOpsApp({ readiness, registry, extraRoutes = [] }: OpsAppDeps): Koa {
  const router = new Router();
  // Alive as long as the event loop answers: restarting would not fix what readiness reports.
  router.get('/healthz', (ctx) => { ctx.body = { status: 'ok', process: PROCESS_IDENTITY }; });
  router.get('/readyz', async (ctx) => {
    let answer: Readiness;
    try {
      answer = await readiness();
    } catch {
      // Its text may name hosts or credentials; whoever built the check logs the details.
      answer = { ready: false, checks: { error: 'readiness check failed' } };
    }
    ctx.status = answer.ready ? 200 : 503;
    ctx.body = { ...answer, process: PROCESS_IDENTITY };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  const app = new Koa();
  for (const routes of extraRoutes) app.use(routes);
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
