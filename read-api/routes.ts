/**
 * Mounts the public operations on a router: validate, answer from the cache or the operation, serialize once,
 * then the HTTP manners of a GET (ETag, 304, Cache-Control) and the read-model position header. GET answers are
 * also recorded by URL for the answer cache in front of the router (cache/answer-cache.ts). Each operation's
 * answers are stamped with where the projections it reads stand, taken before it reads them, so an answer is
 * never older than its stamp, and its header says the lowest of those positions.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { type AnswerCache, sendAnswer } from './cache/answer-cache.ts';
import type { ResponseCache, Stamped } from './cache/response-cache.ts';
import { renderAnswer, timedTemplate, type RenderedAnswer, type TimedAnswer } from './cache/rendered-answer.ts';
import { answerInSnapshot, type StoreEnv } from '../shared/public-api/operations/answer-in-snapshot.ts';
import type { PublicOperation } from '../shared/public-api/operations/public-operation.ts';
import type { ReadModelClock } from '../shared/public-api/read-model-clock.ts';
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

/** The operations' environment, with the clock that stamps their answers. */
export type RouterEnv = StoreEnv & { clock: ReadModelClock };

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
  return async (ctx) => {
    // Before anything is read: the data read can only be as new or newer.
    const stamp = view();
    const body = spec.body ? decodeBody(await readBodyText(ctx.req), ctx.req.headers['content-type']) : undefined;
    const request = validate({ query: ctx.query, path: ctx.params as Record<string, string>, body });
    const key = operation.cacheable ? spec.id + JSON.stringify(request.path) + JSON.stringify(request.query) : '';
    let answer = operation.cacheable ? cache.get(key)?.answer : undefined;
    let position = stamp.position;
    let kept: RenderedAnswer | TimedAnswer | undefined = answer;
    if (answer === undefined) {
      const result = await answerer(operation, request);
      answer = renderAnswer(result.status, result.body);
      // The store went behind what was served (a reset, a switch to a generation not caught up): the answer says
      // what it reflects and is not kept, so no cached answer is older than its stamp.
      if (stamp.behindAt !== null) {
        position = stamp.behindAt;
        kept = undefined;
      } else {
        if (operation.cacheable && answer.status === 200) cache.set(key, { answer, stamp, view });
        kept = operation.timeField === undefined ? answer : timedTemplate(answer, result.body, operation.timeField);
      }
    }
    if (recorded && ctx.method === 'GET' && answer.status === 200 && kept !== undefined) {
      answers.record(ctx, {
        answer: kept, stamp, view, route: spec.path, cacheControl: spec.cacheControl, limit, perClient: spec.verifyLimited === true,
      });
    }
    sendAnswer(ctx, answer, position, spec.cacheControl);
  };
}
