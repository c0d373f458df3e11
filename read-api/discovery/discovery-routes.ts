/**
 * The discovery files, /docs and the demo's watch images (watch-images.ts), as routes the public app mounts beside
 * the operations (`extraRoutes`). Bodies depend only on the operations, the configuration and, for the files with
 * absolute links when `PUBLIC_BASE_URL` is not set, the request's origin (request-origin.ts), so each is built once
 * (per origin), on first request.
 */
import type { Context, Middleware } from 'koa';
import { Router } from '@koa/router';
import type { JwkSet } from '../../shared/signing/jwk-set.ts';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { buildAiBrief } from './ai-brief.ts';
import { DOCS_ASSETS, DOCS_CSP, DOCS_PATH, OPENAPI_PATH, docsAsset, docsHtml, docsInitScript } from './docs-page.ts';
import { buildLlmsFullTxt } from './llms-full-txt.ts';
import { type DiscoveryConfig, buildLlmsTxt } from './llms-txt.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { etagOf } from '../cache/rendered-answer.ts';
import { sendTagged } from '../cache/conditional-answer.ts';
import { baseUrl } from '../../shared/public-base-url.ts';
import { baseFor, perBase, withBase } from './request-origin.ts';
import { WATCH_IMAGE_ROUTE, watchImage } from './watch-images.ts';
import { minPositionChecked } from '../middleware/min-position.ts';
import { GET_PREFLIGHT } from '../middleware/preflight.ts';

interface DiscoveryDeps {
  operations: readonly OperationSpec[];
  config: DiscoveryConfig;
  /** The public keys that sign answers (read-api/signing/signing-keys.ts). */
  jwks: JwkSet;
}

interface Served {
  type: string;
  body: Buffer;
  etag: string;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

const JWKS_PATH = '/.well-known/jwks.json';

export function discoveryRoutes({ operations, config, jwks }: DiscoveryDeps): Middleware {
  const publicBase = baseUrl(config);
  /** A file whose links are absolute: built with the request's base. */
  const linked = (build: (config: DiscoveryConfig) => Served) => {
    const byBase = perBase((base) => build(withBase(config, base)));
    return (ctx: Context) => byBase(baseFor(ctx, publicBase));
  };
  const files: Record<string, (ctx: Context) => Served> = {
    '/llms.txt': linked((withBase) => served(TEXT, buildLlmsTxt(operations, withBase))),
    '/llms-full.txt': linked((withBase) => served(TEXT, buildLlmsFullTxt(operations, withBase))),
    // Its `servers` entry stays `/` without a configured base (docs/api.md), so "Try it out" calls this very instance.
    [OPENAPI_PATH]: once(() => served(JSON_TYPE, JSON.stringify(buildOpenApiDocument(operations, config)))),
    '/.well-known/ai-brief.json': linked((withBase) => served(JSON_TYPE, JSON.stringify(buildAiBrief(operations, withBase)))),
    [JWKS_PATH]: once(() => served('application/jwk-set+json', JSON.stringify(jwks))),
    [`${DOCS_ASSETS}/init.js`]: once(() => served('text/javascript; charset=utf-8', docsInitScript())),
  };
  const docsPage = once(() => served('text/html; charset=utf-8', docsHtml()));

  const router = new Router();
  // Public requests like any other: `X-Min-Position` checked (nothing to wait for), and a page on another site may
  // send it and `Accept-Signature`.
  const get = (path: string, handler: Middleware) => {
    router.get(path, minPositionChecked, handler);
    router.options(path, GET_PREFLIGHT);
  };
  for (const [path, file] of Object.entries(files)) {
    get(path, (ctx) => send(ctx, file(ctx)));
  }
  get(DOCS_PATH, (ctx) => {
    send(ctx, docsPage());
    ctx.set('Content-Security-Policy', DOCS_CSP);
  });
  const assets = new Map<string, Served>();
  get(`${DOCS_ASSETS}/:name`, (ctx) => {
    const name = ctx.params['name'] ?? '';
    let file = assets.get(name);
    if (!file) {
      const asset = docsAsset(name);
      if (!asset) return;
      file = { ...asset, etag: etagOf(asset.body) };
      assets.set(name, file);
    }
    send(ctx, file);
  });
  // Drawn on each request (a millisecond): keeping them would let clients choose what the process holds.
  get(WATCH_IMAGE_ROUTE, (ctx) => {
    const image = watchImage(ctx.params['reference'] ?? '', ctx.params['file'] ?? '');
    if (image !== undefined) send(ctx, served('image/svg+xml', image));
  });
  return router.routes() as Middleware;
}

const send = (ctx: Context, file: Served) => sendTagged(ctx, file.type, file.body, file.etag, 'public, max-age=300');

function served(type: string, text: string): Served {
  const body = Buffer.from(text, 'utf8');
  return { type, body, etag: etagOf(body) };
}

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
