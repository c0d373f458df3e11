/**
 * Routes of the admin API. Each checks the caller's scope before reading the body, so a refused caller gets its
 * 401/403 without anything parsed or written; each answers the appended position, so a caller can wait for it.
 */
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { createHash } from 'node:crypto';
import { eurosToCents } from '../../shared/money/cents.ts';
import type { CommandOptions, CommandService } from '../command-service.ts';
import { importCatalogue } from '../import/import-catalogue.ts';
import { checkBody, PriceBody, RegisterSerialBody, StockBody } from './admin-bodies.ts';
import { presentedKey, type AdminScope, type ApiKeyRing } from './api-keys.ts';
import { ADMIN_BODY_LIMIT, HttpError, IMPORT_BODY_LIMIT, readJsonBody } from './json-body.ts';

/** Set by `requireScope`: who the events will name as actor, and the request's correlation id. */
interface AdminState {
  commandOptions: CommandOptions;
}

/** A short, non-reversible tag of the key, so the history says which key acted without holding the key. */
const keyTag = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

function requireScope(keys: ApiKeyRing, scope: AdminScope) {
  return async (ctx: Context, next: Next) => {
    const key = presentedKey(ctx.headers);
    const scopes = keys.scopesOf(key);
    if (!scopes) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'a valid API key is required (Authorization: Bearer KEY or X-API-Key)');
    }
    if (!scopes.has(scope)) throw new HttpError(403, `this API key lacks the ${scope} scope`);
    const requestId = ctx.get('X-Request-Id');
    (ctx.state as AdminState).commandOptions = {
      actor: `admin-api:${keyTag(key as string)}`,
      ...(/^[\w.-]{1,100}$/.test(requestId) ? { correlationId: requestId } : {}),
    };
    await next();
  };
}

const optionsOf = (ctx: Context) => (ctx.state as AdminState).commandOptions;
const param = (ctx: Context, name: string) => String((ctx as unknown as { params: Record<string, string> }).params[name]);

function euros(value: number): number {
  try {
    return eurosToCents(value);
  } catch (error) {
    throw new HttpError(422, (error as Error).message);
  }
}

export function adminRouter(service: CommandService, keys: ApiKeyRing): Router {
  const router = new Router({ prefix: '/admin' });
  const serials = requireScope(keys, 'serials');
  const catalogue = requireScope(keys, 'catalogue');
  const body = (ctx: Context, limit = ADMIN_BODY_LIMIT) => readJsonBody(ctx.req, limit);

  router.post('/serials', serials, async (ctx) => {
    const { serial, reference, year } = checkBody(RegisterSerialBody, await body(ctx));
    const result = await service.registerSerial(serial, reference, year, optionsOf(ctx));
    ctx.status = 201;
    ctx.body = { position: result.position };
  });
  router.post('/serials/:serial/stolen', serials, async (ctx) => {
    ctx.body = { position: (await service.reportSerialStolen(param(ctx, 'serial'), optionsOf(ctx))).position };
  });
  router.post('/serials/:serial/recovered', serials, async (ctx) => {
    ctx.body = { position: (await service.recoverSerial(param(ctx, 'serial'), optionsOf(ctx))).position };
  });

  router.put('/watches/:reference/price', catalogue, async (ctx) => {
    const { price_eur } = checkBody(PriceBody, await body(ctx));
    ctx.body = { position: (await service.changeWatchPrice(param(ctx, 'reference'), euros(price_eur), optionsOf(ctx))).position };
  });
  router.put('/watches/:reference/stock', catalogue, async (ctx) => {
    const { stock_status } = checkBody(StockBody, await body(ctx));
    ctx.body = { position: (await service.changeWatchStock(param(ctx, 'reference'), stock_status, optionsOf(ctx))).position };
  });
  router.delete('/watches/:reference', catalogue, async (ctx) => {
    ctx.body = { position: (await service.withdrawWatch(param(ctx, 'reference'), optionsOf(ctx))).position };
  });
  router.post('/import', catalogue, async (ctx) => {
    const report = await importCatalogue(service, await body(ctx, IMPORT_BODY_LIMIT), undefined, optionsOf(ctx));
    ctx.body = report;
  });
  return router;
}
