/**
 * Mounts the public operations on a router: validate, answer from the cache or the operation, serialize once,
 * then the HTTP manners of a GET (ETag, 304, Cache-Control) and the read-model position header. GET answers are
 * also recorded by URL for the answer cache in front of the router (cache/answer-cache.ts). Whether an answer may
 * be given, kept or given again from the cache, and what it says of its data, is the answer policy's
 * (shared/read-model/public-api/answer-policy.ts): each answer is read and stamped from one reading of the store, or refused
 * (503) when the read models it needs cannot be vouched for.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { type AnswerCache, sendAnswer } from './cache/answer-cache.ts';
import { sendRefusal } from './cache/conditional-answer.ts';
import { ResponseCache, type Stamped } from './cache/response-cache.ts';
import { renderAnswer, timedTemplate, type RenderedAnswer } from './cache/rendered-answer.ts';
import { GET_PREFLIGHT, preflight } from './middleware/preflight.ts';
import { minPositionOf, operationPolicy, type ReadingEnv } from '../shared/read-model/public-api/answer-policy.ts';
import type { PublicOperation } from '../shared/read-model/public-api/operations/public-operation.ts';
import { decodeBody, readBodyText } from '../shared/read-model/public-api/validation/request-body.ts';
import { compileRequestValidator, readModelHeaders } from '../shared/read-model/public-api/validation/request-validator.ts';

interface RouteOptions {
  /** Extra limit in front of operations flagged `verifyLimited`. */
  verifyLimit?: Middleware;
  /** Answers by canonical request, shared by every spelling of the same request. */
  cache: ResponseCache<CanonicalAnswer>;
  /** Where GET answers are recorded by URL. */
  answers: AnswerCache;
}

/** The operations' environment, with the clock whose readings they are answered and stamped from. */
export type RouterEnv = ReadingEnv;

interface CanonicalAnswer extends Stamped {
  answer: RenderedAnswer;
}

/** The store of answers by canonical request, bounded as `bounds` says (default 2000 entries, ANSWER_CACHE_MAX_BYTES's bytes). */
export function canonicalAnswerCache(bounds: { maxEntries?: number; maxBytes?: number } = {}): ResponseCache<CanonicalAnswer> {
  return new ResponseCache<CanonicalAnswer>({ bytesOf: (entry) => entry.answer.body.length, ...bounds });
}

export function publicRouter(operations: readonly PublicOperation[], env: RouterEnv, options: RouteOptions): Router {
  // Case-insensitive, trailing slash optional: the way `isPublicPath` (rate-limit/public-path.ts) reads a path.
  const router = new Router({ sensitive: false, strict: false });
  for (const operation of operations) {
    const { spec } = operation;
    const handler = operationHandler(operation, env, options);
    const chain = spec.verifyLimited && options.verifyLimit ? [options.verifyLimit, handler] : [handler];
    if (spec.method === 'GET') router.get(spec.id, spec.path, ...chain);
    else router.post(spec.id, spec.path, ...chain);
    router.options(spec.path, spec.method === 'GET' ? GET_PREFLIGHT : preflight('POST, OPTIONS'));
  }
  return router;
}

function operationHandler(operation: PublicOperation, env: RouterEnv, { cache, answers, verifyLimit }: RouteOptions): Middleware {
  const { spec } = operation;
  const validate = compileRequestValidator(spec);
  const policy = operationPolicy(env, operation);
  // Kept by canonical request: answers kept whole. By URL: those too, and those whose time is renewed (GET only).
  const canonical = policy.keeping === 'whole';
  const recorded = spec.method === 'GET' && policy.keeping !== 'none';
  const limit = spec.verifyLimited ? verifyLimit : undefined;
  return async (ctx) => {
    const body = spec.body ? decodeBody(await readBodyText(ctx.req), ctx.req.headers['content-type']) : undefined;
    const request = validate({ query: ctx.query, path: ctx.params as Record<string, string>, header: readModelHeaders(ctx.req.headers), body });
    const key = canonical ? spec.id + JSON.stringify(request.path) + JSON.stringify(request.query) : '';
    const entry = canonical ? cache.get(key) : undefined;
    const serving = entry === undefined ? undefined : policy.serving(entry, minPositionOf(request));
    if (entry !== undefined && serving !== undefined) {
      sendAnswer(ctx, entry.answer, serving.position, spec.cacheControl, serving.dataAge);
      return;
    }
    const { answer: result, stamp, position, dataAge } = await policy.answer(request);
    const answer = renderAnswer(result.status, result.body);
    // Refused by the policy (no stamp), or by the operation itself (a proof not ready: it says when to try again).
    if (stamp === undefined || result.retryAfter !== undefined) {
      sendRefusal(ctx, answer.status, answer.body, result.retryAfter ?? 1);
      return;
    }
    const kept = policy.keep(stamp, answer.status === 200 && result.once !== true);
    if (kept && canonical) cache.set(key, { answer, ...kept });
    const template = operation.timeField === undefined ? answer : timedTemplate(answer, result.body, operation.timeField);
    if (kept && recorded && ctx.method === 'GET' && template !== undefined) {
      answers.record(ctx, {
        answer: template, ...kept, policy, route: spec.path, cacheControl: spec.cacheControl, limit, perClient: spec.verifyLimited === true,
      });
    }
    sendAnswer(ctx, answer, position, spec.cacheControl, dataAge);
  };
}
