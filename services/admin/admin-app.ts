/**
 * The admin HTTP API (Koa), on its own port, over the command service. Client errors are answered with what went
 * wrong (`{detail}`); anything else is logged and answered with a generic 500. Keys are never logged.
 */
import Koa from 'koa';
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import type { CommandService } from '../write/command-service.ts';
import { DomainError } from '../write/domain/domain-error.ts';
import { CatalogueFileError } from '../import/catalogue-validation.ts';
import { adminRouter } from './admin-routes.ts';
import { adminAuth, requireScope, type AuthFailureMetrics } from './require-scope.ts';
import { entryBundleRoute, type EntryBundleSources } from './entry-bundles.ts';
import { HttpError } from './json-body.ts';
import { issue, RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { boundedIssues } from '../../shared/read-model/public-api/validation/issue-bound.ts';
import { ClientClosedRequestError } from '../../shared/read-model/public-api/validation/request-body.ts';

const DOMAIN_STATUS = { not_found: 404, conflict: 409, invalid: 422 } as const;

/** Refusals that span the body (a serial listed twice in a file, a year in the future), as a 422's list. */
function bodyRefusals(problems: readonly string[]): object {
  const detail = problems.map((problem) => issue.valueError(['body'], null, problem));
  return { detail: boundedIssues(detail) };
}

function clientError(error: unknown): { status: number; body: object } | null {
  if (error instanceof HttpError) return { status: error.status, body: { detail: error.message } };
  // Nobody is left to read it; the request line below says 499.
  if (error instanceof ClientClosedRequestError) return { status: error.status, body: { detail: error.message } };
  if (error instanceof RequestValidationError) return { status: 422, body: { detail: error.issues } };
  // Every 422 has the list shape (docs/api.md); a 404 or a 409 says its one reason.
  if (error instanceof DomainError) {
    return { status: DOMAIN_STATUS[error.kind], body: error.kind === 'invalid' ? bodyRefusals([error.message]) : { detail: error.message } };
  }
  // What remains once the shape is checked (admin-routes.ts) spans entries (a serial listed twice): the whole body's.
  if (error instanceof CatalogueFileError) return { status: 422, body: bodyRefusals(error.problems) };
  return null;
}

interface AdminAppOptions {
  /** Counts failed authentications, e.g. into the metrics of the process. */
  authMetrics?: AuthFailureMetrics;
  /** Where the transparency log's entry bundles are read, for the `audit` scope (entry-bundles.ts); none without. */
  entryBundles?: EntryBundleSources;
}

export function createAdminApp(
  service: CommandService, config: Pick<Config, 'ADMIN_API_KEYS' | 'ADMIN_AUTH_FAILURES_PER_MINUTE'>, logger: Logger, options: AdminAppOptions = {},
): Koa {
  const auth = adminAuth(config, options.authMetrics);
  const router = adminRouter(service, auth);
  const app = new Koa();
  // Every failure of a request is answered and logged below. What Koa would still print, with its stack, on stderr
  // is the connection's own end: a client gone mid-body, whose request line already says 499.
  app.silent = true;
  app.use(async (ctx, next) => {
    const started = Date.now();
    try {
      await next();
      // What the router answers without a body (404, 405 with its Allow header, 501) is JSON too.
      if (ctx.status >= 400 && ctx.body === undefined) {
        const status = ctx.status;
        ctx.body = { detail: ctx.message };
        ctx.status = status;
      }
    } catch (error) {
      const known = clientError(error);
      if (known) {
        ctx.status = known.status;
        ctx.body = known.body;
      } else {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'admin request failed');
        ctx.status = 500;
        ctx.body = { detail: 'Internal Server Error' };
      }
    }
    // Answered before the body was read (401, 413, 429): close rather than drain whatever the client still sends.
    if (!ctx.req.complete) ctx.set('Connection', 'close');
    logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Date.now() - started }, 'admin request');
  });
  if (options.entryBundles) app.use(entryBundleRoute(options.entryBundles, requireScope(auth, 'audit')));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
