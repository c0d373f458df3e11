/**
 * Routes of the admin API. Each checks the caller's scope before reading the body, so a refused caller gets its
 * 401/403 without anything parsed or written; each answers the appended position, so a caller can wait for it.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { eurosToCents } from '../../shared/money/cents.ts';
import type { CommandService } from '../command-service.ts';
import { importCatalogue } from '../import/import-catalogue.ts';
import { CatalogueFile } from '../catalogue/catalogue-file.ts';
import { NewWatch, WatchEdit } from '../catalogue/watch-entry.ts';
import { checkDocument, CustomizableBody, PriceBody, RegisterSerialBody, StockBody } from './admin-bodies.ts';
import { requireScope, type AdminAuth, type AdminState } from './require-scope.ts';
import { ADMIN_BODY_LIMIT, IMPORT_BODY_LIMIT, readJsonBody } from './json-body.ts';

const optionsOf = (ctx: Context) => (ctx.state as AdminState).commandOptions;
const param = (ctx: Context, name: string) => String((ctx as unknown as { params: Record<string, string> }).params[name]);

export function adminRouter(service: CommandService, auth: AdminAuth): Router {
  const router = new Router({ prefix: '/admin' });
  const serials = requireScope(auth, 'serials');
  const catalogue = requireScope(auth, 'catalogue');
  const body = (ctx: Context, limit = ADMIN_BODY_LIMIT) => readJsonBody(ctx.req, limit);

  router.post('/serials', serials, async (ctx) => {
    const { serial, reference, year } = await checkDocument(RegisterSerialBody, await body(ctx));
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
    const { price_eur } = await checkDocument(PriceBody, await body(ctx));
    ctx.body = { position: (await service.changeWatchPrice(param(ctx, 'reference'), eurosToCents(price_eur), optionsOf(ctx))).position };
  });
  router.put('/watches/:reference/stock', catalogue, async (ctx) => {
    const { stock_status } = await checkDocument(StockBody, await body(ctx));
    ctx.body = { position: (await service.changeWatchStock(param(ctx, 'reference'), stock_status, optionsOf(ctx))).position };
  });
  router.post('/watches', catalogue, async (ctx) => {
    const { price_eur, ...fields } = await checkDocument(NewWatch, await body(ctx));
    const result = await service.publishWatch({ ...fields, price_cents: eurosToCents(price_eur) }, optionsOf(ctx));
    ctx.status = 201;
    ctx.body = { position: result.position };
  });
  router.patch('/watches/:reference', catalogue, async (ctx) => {
    const changes = await checkDocument(WatchEdit, await body(ctx));
    const reference = param(ctx, 'reference').toUpperCase();
    ctx.body = { position: (await service.reviseWatch({ ...changes, reference }, optionsOf(ctx))).position };
  });
  router.put('/watches/:reference/customizable', catalogue, async (ctx) => {
    const { customizable } = await checkDocument(CustomizableBody, await body(ctx));
    const reference = param(ctx, 'reference').toUpperCase();
    ctx.body = { position: (await service.reviseWatch({ reference, customizable }, optionsOf(ctx))).position };
  });
  router.delete('/watches/:reference', catalogue, async (ctx) => {
    ctx.body = { position: (await service.withdrawWatch(param(ctx, 'reference'), optionsOf(ctx))).position };
  });
  router.post('/import', catalogue, async (ctx) => {
    // The file's shape is checked here too, so a refusal lists each problem at its place in the body.
    const file = await checkDocument(CatalogueFile, await body(ctx, IMPORT_BODY_LIMIT));
    const report = await importCatalogue(service, file, undefined, optionsOf(ctx));
    ctx.body = report;
  });
  return router;
}
