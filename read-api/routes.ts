/**
 * Mounts the public operations on a router: validate, answer from the cache or the operation, serialize once,
 * then the HTTP manners of a GET (ETag, 304, Cache-Control) and the read-model position header. GET answers are
 * also recorded for the answer replay in front of Koa (cache/answer-replay.ts).
 */
import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { ReplayCache, ReplayEntry } from './cache/answer-replay.ts';
import { conditionalAnswer } from './cache/conditional-answer.ts';
import { ResponseCache } from './cache/response-cache.ts';
import { renderAnswer, timedTemplate, type RenderedAnswer } from './cache/rendered-answer.ts';
import type { OperationEnv, PublicOperation } from './operations/public-operation.ts';
import { decodeBody, readBodyText } from './validation/request-body.ts';
import { compileRequestValidator } from './validation/request-validator.ts';

export interface RouteOptions {
  /** Extra limit in front of operations flagged `verifyLimited`. */
  verifyLimit?: Middleware;
  /** Answers by canonical request, shared by every spelling of the same request. */
  cache: ResponseCache<RenderedAnswer>;
  /** Where GET answers are recorded for replay by URL, and the client key of verification answers. */
  replay?: { cache: ReplayCache; clientKey(req: IncomingMessage): string };
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
    const handler = operationHandler(operation, env, options);
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

function operationHandler(operation: PublicOperation, env: OperationEnv, { cache, replay }: RouteOptions): Middleware {
  const { spec } = operation;
  const validate = compileRequestValidator(spec);
  const replayable = spec.method === 'GET' && (operation.cacheable || operation.timeField !== undefined);
  return async (ctx) => {
    const position = env.clock.current();
    const body = spec.body ? decodeBody(await readBodyText(ctx.req), ctx.req.headers['content-type']) : undefined;
    const request = validate({ query: ctx.query, path: ctx.params as Record<string, string>, body });
    const key = operation.cacheable ? spec.id + JSON.stringify(request.path) + JSON.stringify(request.query) : '';
    let answer = operation.cacheable ? cache.get(key, position) : undefined;
    let replayed: ReplayEntry['answer'] | undefined = answer;
    if (answer === undefined) {
      const result = await operation.handle(request, env);
      answer = renderAnswer(result.status, result.body);
      if (operation.cacheable && answer.status === 200) cache.set(key, position, answer);
      replayed = operation.timeField === undefined ? answer : timedTemplate(answer, result.body, operation.timeField);
    }
    if (replay && replayable && ctx.method === 'GET' && answer.status === 200 && replayed !== undefined) {
      replay.cache.set(ctx.url, position, {
        answer: replayed, route: spec.path, cacheControl: spec.cacheControl, verification: spec.verifyLimited === true,
        client: spec.verifyLimited ? replay.clientKey(ctx.req) : undefined,
      });
    }
    send(ctx, answer, position, spec.cacheControl);
  };
}

function send(ctx: ParameterizedContext, answer: RenderedAnswer, position: number, cacheControl: string | undefined): void {
  const http = conditionalAnswer(answer, {
    position, cacheControl, conditional: ctx.method === 'GET' || ctx.method === 'HEAD', ifNoneMatch: ctx.req.headers['if-none-match'],
  });
  const res = ctx.res;
  for (const [name, value] of http.headers) res.setHeader(name, value);
  ctx.status = http.status;
  if (http.body !== undefined) ctx.body = http.body;
}
