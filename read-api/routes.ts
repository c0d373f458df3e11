/**
 * Mounts the public operations on a router: validate, answer from the cache or the operation, serialize once,
 * then the HTTP manners of a GET (ETag, 304, Cache-Control) and the read-model position header. GET answers are
 * also recorded by URL for the answer cache in front of the router (cache/answer-cache.ts). Each answer is read
 * and stamped from one reading of the store (answer-in-snapshot.ts), or refused (503) when the read models it needs
 * cannot be vouched for; its header says the lowest position of the projections it read.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { type AnswerCache, sendAnswer } from './cache/answer-cache.ts';
import type { ResponseCache, Stamped } from './cache/response-cache.ts';
import { renderAnswer, timedTemplate, type RenderedAnswer } from './cache/rendered-answer.ts';
import { JSON_TYPE } from './middleware/front-door.ts';
import { answerInSnapshot, type ReadingEnv } from '../shared/public-api/operations/answer-in-snapshot.ts';
import type { PublicOperation } from '../shared/public-api/operations/public-operation.ts';
import { decodeBody, readBodyText } from '../shared/public-api/validation/request-body.ts';
import { compileRequestValidator } from '../shared/public-api/validation/request-validator.ts';

export interface RouteOptions {
  /** Extra limit in front of operations flagged `verifyLimited`. */
  verifyLimit?: Middleware;
  /** Answers by canonical request, shared by every spelling of the same request. */
  cache: ResponseCache<CanonicalAnswer>;
  /** Where GET answers are recorded by URL. */
  answers: AnswerCache;
}

/** The operations' environment, with the clock whose readings they are answered and stamped from. */
export type RouterEnv = ReadingEnv;

export interface CanonicalAnswer extends Stamped {
  answer: RenderedAnswer;
}

/** A page on another site may send JSON to the price operation, and ask any operation for a signed answer. */
const preflightHeaders = (methods: string): [string, string][] => [
  ['Access-Control-Allow-Methods', methods],
  ['Access-Control-Allow-Headers', 'Content-Type, Accept-Signature'],
  ['Access-Control-Max-Age', '600'],
];

export function publicRouter(operations: readonly PublicOperation[], env: RouterEnv, options: RouteOptions): Router {
  // Case-insensitive, trailing slash optional: the way `isPublicPath` (rate-limit/public-path.ts) reads a path.
  const router = new Router({ sensitive: false, strict: false });
  for (const operation of operations) {
    const { spec } = operation;
    const handler = operationHandler(operation, env, options);
    const chain = spec.verifyLimited && options.verifyLimit ? [options.verifyLimit, handler] : [handler];
    if (spec.method === 'GET') router.get(spec.id, spec.path, ...chain);
    else router.post(spec.id, spec.path, ...chain);
    router.options(spec.path, preflight(preflightHeaders(spec.method === 'GET' ? 'GET, HEAD, OPTIONS' : 'POST, OPTIONS')));
  }
  return router;
}

const preflight = (headers: [string, string][]): Middleware => (ctx) => {
  for (const [name, value] of headers) ctx.set(name, value);
  ctx.status = 204;
};

function operationHandler(operation: PublicOperation, env: RouterEnv, { cache, answers, verifyLimit }: RouteOptions): Middleware {
  const { spec } = operation;
  const validate = compileRequestValidator(spec);
  const recorded = spec.method === 'GET' && (operation.cacheable || operation.timeField !== undefined);
  const limit = spec.verifyLimited ? verifyLimit : undefined;
  const view = env.clock.view(operation.reads);
  const answerer = answerInSnapshot(env);
  const refusal = () => env.clock.refusal(operation.reads, operation.fresh === true);
  // An answer that needs fresh read models says how old its data is, kept answers too.
  const dataAge = operation.fresh === true ? () => env.clock.dataAge(operation.reads) : undefined;
  return async (ctx) => {
    const body = spec.body ? decodeBody(await readBodyText(ctx.req), ctx.req.headers['content-type']) : undefined;
    const request = validate({ query: ctx.query, path: ctx.params as Record<string, string>, body });
    const key = operation.cacheable ? spec.id + JSON.stringify(request.path) + JSON.stringify(request.query) : '';
    const entry = operation.cacheable && refusal() === undefined ? cache.get(key) : undefined;
    if (entry !== undefined) {
      sendAnswer(ctx, entry.answer, entry.stamp.position, spec.cacheControl, dataAge?.());
      return;
    }
    const { answer: result, stamp, dataAge: age } = await answerer(operation, request);
    const answer = renderAnswer(result.status, result.body);
    if (stamp === undefined) {
      sendRefusal(ctx, answer, result.retryAfter);
      return;
    }
    // The store went behind what was served (a reset, a switch to a generation not caught up): the answer says
    // what it reflects and is not kept, so no cached answer is older than its stamp.
    if (stamp.behindAt !== null) {
      sendAnswer(ctx, answer, stamp.behindAt, spec.cacheControl, age);
      return;
    }
    if (operation.cacheable && answer.status === 200) cache.set(key, { answer, stamp, view });
    const kept = operation.timeField === undefined ? answer : timedTemplate(answer, result.body, operation.timeField);
    if (recorded && ctx.method === 'GET' && answer.status === 200 && kept !== undefined) {
      answers.record(ctx, {
        answer: kept, stamp, view, route: spec.path, cacheControl: spec.cacheControl, limit, perClient: spec.verifyLimited === true, refusal, dataAge,
      });
    }
    sendAnswer(ctx, answer, stamp.position, spec.cacheControl, age);
  };
}

/** A refusal (docs/api.md, "Honest answers"): 503 with when to try again, kept by no cache on the way. */
function sendRefusal(ctx: Parameters<Middleware>[0], answer: RenderedAnswer, retryAfter: number | undefined): void {
  ctx.set('Retry-After', String(retryAfter ?? 1));
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Type', JSON_TYPE);
  ctx.status = answer.status;
  ctx.body = answer.body;
}
