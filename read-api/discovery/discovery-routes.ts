/**
 * The discovery files and /docs, as routes the public app mounts beside the operations (`extraRoutes`). Bodies
 * depend only on the operations and the configuration, so each is built once, on first request.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { Router } from '@koa/router';
import type { JwkSet } from '../../shared/signing/jwk-set.ts';
import type { OperationSpec } from '../../shared/public-api/operations/operation.ts';
import { buildAiBrief } from './ai-brief.ts';
import { DOCS_ASSETS, DOCS_CSP, DOCS_PATH, OPENAPI_PATH, docsAsset, docsHtml, docsInitScript } from './docs-page.ts';
import { buildLlmsFullTxt } from './llms-full-txt.ts';
import { type DiscoveryConfig, buildLlmsTxt } from './llms-txt.ts';
import { buildOpenApiDocument } from './openapi.ts';

export interface DiscoveryDeps {
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

export const JWKS_PATH = '/.well-known/jwks.json';

export function discoveryRoutes({ operations, config, jwks }: DiscoveryDeps): Middleware {
  const files: Record<string, () => Served> = {
    '/llms.txt': once(() => served(TEXT, buildLlmsTxt(operations, config))),
    '/llms-full.txt': once(() => served(TEXT, buildLlmsFullTxt(operations, config))),
    [OPENAPI_PATH]: once(() => served(JSON_TYPE, JSON.stringify(buildOpenApiDocument(operations, config)))),
    '/.well-known/ai-brief.json': once(() => served(JSON_TYPE, JSON.stringify(buildAiBrief(operations, config)))),
    [JWKS_PATH]: once(() => served('application/jwk-set+json', JSON.stringify(jwks))),
    [`${DOCS_ASSETS}/init.js`]: once(() => served('text/javascript; charset=utf-8', docsInitScript())),
  };
  const docsPage = once(() => served('text/html; charset=utf-8', docsHtml()));

  const router = new Router();
  for (const [path, file] of Object.entries(files)) {
    router.get(path, (ctx) => send(ctx, file()));
  }
  router.get(DOCS_PATH, (ctx) => {
    send(ctx, docsPage());
    ctx.set('Content-Security-Policy', DOCS_CSP);
  });
  const assets = new Map<string, Served>();
  router.get(`${DOCS_ASSETS}/:name`, (ctx) => {
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
  return router.routes() as Middleware;
}

function send(ctx: Parameters<Middleware>[0], file: Served): void {
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.set('ETag', file.etag);
  if (ctx.get('If-None-Match') === file.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  ctx.body = file.body;
}

function served(type: string, text: string): Served {
  const body = Buffer.from(text, 'utf8');
  return { type, body, etag: etagOf(body) };
}

const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
