/**
 * Mounts the public operations on a router: validate, answer from the cache or the operation, serialize once,
 * then the HTTP manners of a GET (ETag, 304, Cache-Control) and the read-model position header.
 */
import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { ResponseCache } from './cache/response-cache.ts';
import { matchesIfNoneMatch, renderAnswer, type RenderedAnswer } from './cache/rendered-answer.ts';
import { JSON_TYPE } from './middleware/front-door.ts';
import type { OperationEnv, PublicOperation } from './operations/public-operation.ts';
import { decodeBody, readBodyText } from './validation/request-body.ts';
import { compileRequestValidator } from './validation/request-validator.ts';

export interface RouteOptions {
  /** Extra limit in front of operations flagged `verifyLimited`. */
  verifyLimit?: Middleware;
  cache: ResponseCache;
}

export const PRICE_PREFLIGHT_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Methods', 'POST, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Content-Type'],
  ['Access-Control-Max-Age', '600'],
];

export function publicRouter(operations: readonly PublicOperation[], env: OperationEnv, options: RouteOptions): Router {
  const router = new Router();
  for (const operation of operations) {
    const { spec } = operation;
    const handler = operationHandler(operation, env, options.cache);
    const chain = spec.verifyLimited && options.verifyLimit ? [options.verifyLimit, handler] : [handler];
    if (spec.method === 'GET') router.get(spec.id, spec.path, ...chain);
    else {
      router.post(spec.id, spec.path, ...chain);
      router.options(spec.path, preflight);
    }
  }
  return router;
}

const preflight: Middleware = (ctx) => {
  for (const [name, value] of PRICE_PREFLIGHT_HEADERS) ctx.set(name, value);
  ctx.status = 204;
};

function operationHandler(operation: PublicOperation, env: OperationEnv, cache: ResponseCache): Middleware {
  const { spec } = operation;
  const validate = compileRequestValidator(spec);
  const cacheControl = spec.cacheControl;
  return async (ctx) => {
    const position = env.clock.current();
    // A URL answered before at this position is answered again without parsing or validating it: the same URL
    // always validates to the same request. Other spellings of that request meet under the canonical key below.
    const urlKey = operation.cacheable ? `${spec.id} ${ctx.url}` : '';
    const known = operation.cacheable ? cache.get(urlKey, position) : undefined;
    if (known !== undefined) return send(ctx, known, position, cacheControl);

    const body = spec.body ? decodeBody(await readBodyText(ctx.req), ctx.req.headers['content-type']) : undefined;
    const request = validate({ query: ctx.query, path: ctx.params as Record<string, string>, body });
    let answer: RenderedAnswer | undefined;
    let key = '';
    if (operation.cacheable) {
      key = spec.id + JSON.stringify(request.path) + JSON.stringify(request.query);
      answer = cache.get(key, position);
    }
    if (answer === undefined) {
      const result = await operation.handle(request, env);
      answer = renderAnswer(result.status, result.body);
      if (operation.cacheable && answer.status === 200) cache.set(key, position, answer);
    }
    if (operation.cacheable && answer.status === 200) cache.set(urlKey, position, answer);
    send(ctx, answer, position, cacheControl);
  };
}

function send(ctx: ParameterizedContext, answer: RenderedAnswer, position: number, cacheControl: string | undefined): void {
  const res = ctx.res;
  res.setHeader('X-Read-Model-Position', String(position));
  if (answer.status === 200) {
    if (cacheControl !== undefined) res.setHeader('Cache-Control', cacheControl);
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      res.setHeader('ETag', answer.etag);
      if (matchesIfNoneMatch(ctx.req.headers['if-none-match'], answer.etag)) {
        ctx.status = 304;
        return;
      }
    }
  }
  res.setHeader('Content-Type', JSON_TYPE);
  ctx.status = answer.status;
  ctx.body = answer.body;
}
