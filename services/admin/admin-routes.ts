/**
 * Routes of the admin API. Each checks the caller's scope before reading the body, so a refused caller gets its
 * 401/403 without anything parsed or written; each answers the appended position (body field and `X-Position`
 * header), so a caller can ask the public API for an answer at or past it (`X-Min-Position`, docs/api.md).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { eurosToCents } from '../../shared/money/cents.ts';
import { canonicalId } from '../../shared/events/index.ts';
import type { CommandService } from '../write/command-service.ts';
import { importCatalogue } from '../import/import-catalogue.ts';
import { NewWatch, WatchEdit } from '../catalogue/watch-entry.ts';
import { checkDocument, CustomizableBody, PriceBody, RegisterSerialBody, StockBody } from './admin-bodies.ts';
import { requireScope, type AdminAuth, type AdminState } from './require-scope.ts';
import { checkedCatalogueFile } from './catalogue-check.ts';
import { ADMIN_BODY_LIMIT, IMPORT_BODY_LIMIT, readJsonBody, readJsonText } from './json-body.ts';

const optionsOf = (ctx: Context) => (ctx.state as AdminState).commandOptions;
/** Answers an append: its event-store position, in the body and in `X-Position`. */
function appended(ctx: Context, position: number, status = 200): void {
  ctx.status = status;
  ctx.set('X-Position', String(position));
  ctx.body = { position };
}

const param = (ctx: Context, name: string) => String((ctx as unknown as { params: Record<string, string> }).params[name]);

export function adminRouter(service: CommandService, auth: AdminAuth): Router {
  const router = new Router({ prefix: '/admin' });
  const serials = requireScope(auth, 'serials');
  const catalogue = requireScope(auth, 'catalogue');
  const body = (ctx: Context, limit = ADMIN_BODY_LIMIT) => readJsonBody(ctx.req, limit);

  router.post('/serials', serials, async (ctx) => {
    const { serial, reference, year } = await checkDocument(RegisterSerialBody, await body(ctx));
    appended(ctx, (await service.registerSerial(serial, reference, year, optionsOf(ctx))).position, 201);
  });
  router.post('/serials/:serial/stolen', serials, async (ctx) => {
    appended(ctx, (await service.reportSerialStolen(param(ctx, 'serial'), optionsOf(ctx))).position);
  });
  router.post('/serials/:serial/recovered', serials, async (ctx) => {
    appended(ctx, (await service.recoverSerial(param(ctx, 'serial'), optionsOf(ctx))).position);
  });

  router.put('/watches/:reference/price', catalogue, async (ctx) => {
    const { price_eur } = await checkDocument(PriceBody, await body(ctx));
    appended(ctx, (await service.changeWatchPrice(param(ctx, 'reference'), eurosToCents(price_eur), optionsOf(ctx))).position);
  });
  router.put('/watches/:reference/stock', catalogue, async (ctx) => {
    const { stock_status } = await checkDocument(StockBody, await body(ctx));
    appended(ctx, (await service.changeWatchStock(param(ctx, 'reference'), stock_status, optionsOf(ctx))).position);
  });
  router.post('/watches', catalogue, async (ctx) => {
    const { price_eur, ...fields } = await checkDocument(NewWatch, await body(ctx));
    appended(ctx, (await service.publishWatch({ ...fields, price_cents: eurosToCents(price_eur) }, optionsOf(ctx))).position, 201);
  });
  router.patch('/watches/:reference', catalogue, async (ctx) => {
    const changes = await checkDocument(WatchEdit, await body(ctx));
    const reference = canonicalId(param(ctx, 'reference'));
    appended(ctx, (await service.reviseWatch({ ...changes, reference }, optionsOf(ctx))).position);
  });
  router.put('/watches/:reference/customizable', catalogue, async (ctx) => {
    const { customizable } = await checkDocument(CustomizableBody, await body(ctx));
    const reference = canonicalId(param(ctx, 'reference'));
    appended(ctx, (await service.reviseWatch({ reference, customizable }, optionsOf(ctx))).position);
  });
  router.delete('/watches/:reference', catalogue, async (ctx) => {
    appended(ctx, (await service.withdrawWatch(param(ctx, 'reference'), optionsOf(ctx))).position);
  });
  router.post('/import', catalogue, async (ctx) => {
    // The file's shape is checked here too, so a refusal lists each problem at its place in the body.
    const file = await checkedCatalogueFile(await readJsonText(ctx.req, IMPORT_BODY_LIMIT), ctx.req.headers['content-type']);
    const report = await importCatalogue(service, file, undefined, optionsOf(ctx));
    ctx.set('X-Position', String(report.position));
    ctx.body = report;
  });
  return router;
}
