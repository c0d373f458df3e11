/**
 * The answer cache, an early middleware of the public app (after the front door, the metrics and the general
 * limit, before routing): a GET or HEAD whose exact URL an operation answered is answered from the bytes the
 * operation produced, as long as the answer policy lets that answer be given again (shared/read-model/public-api/answer-policy.ts:
 * the projections it read stand where they stood, and a verification's registry is still fresh), so a repeated GET
 * costs a lookup instead of routing, validation and rendering. The route records its answers (routes.ts) and both send them with `sendAnswer`, so an answer from
 * the cache is the route's own: same status, headers and bytes, the route's own limits run again (a verification
 * still counts against the verification limits), and the metrics label it with the route's template.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, ParameterizedContext } from 'koa';
import { conditionalAnswer } from './conditional-answer.ts';
import { answerBytes, type RenderedAnswer, renewTime, type TimedAnswer } from './rendered-answer.ts';
import { ResponseCache, type Stamped } from './response-cache.ts';
import type { KeptAnswerPolicy, Serving } from '../../shared/read-model/public-api/answer-policy.ts';
import { askedMinPosition } from '../../shared/read-model/public-api/validation/request-validator.ts';

interface CachedAnswer extends Stamped {
  answer: RenderedAnswer | TimedAnswer;
  /** The route template (`/api/public/catalogue/:reference`), as the router names the matched route. */
  route: string;
  cacheControl: string | undefined;
  /** What the route runs before its handler (the verification limits), run again on every answer from the cache. */
  limit: Middleware | undefined;
  /** The policy of the operation that answered: asked before the answer is given again (the route answers otherwise). */
  policy: KeptAnswerPolicy;
}

interface AnswerCacheDeps {
  clientKey(req: IncomingMessage): string;
  /** Largest number of URLs kept (default 2000). */
  maxEntries?: number;
  /** Most bytes of answers and URLs kept (ANSWER_CACHE_MAX_BYTES). */
  maxBytes?: number;
}

export interface AnswerCache {
  middleware: Middleware;
  /**
   * Keeps what a route answered to the GET of `ctx.url`, from the data of `answer.stamp`; `perClient`: for this client
   * only, under a key of its own, so that one client's timing can tell it neither what another just verified nor that
   * another asked the same URL (whose answer would replace its own).
   */
  record(ctx: Context, answer: CachedAnswer & { perClient: boolean }): void;
}

/** The key of an answer kept for one client (a URL holds no line break). */
const clientEntryKey = (client: string, url: string) => `${client}\n${url}`;

export function createAnswerCache({ clientKey, maxEntries, maxBytes }: AnswerCacheDeps): AnswerCache {
  const cache = new ResponseCache<CachedAnswer>({
    bytesOf: (entry) => answerBytes(entry.answer),
    ...(maxEntries === undefined ? {} : { maxEntries }), ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  return {
    middleware: (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      // A kept answer is given to a request asking for a minimum position (`X-Min-Position`) if the policy finds it
      // read at or past it; else, or when the header is not valid, the route checks it and waits for that position.
      const minPosition = askedMinPosition(ctx.req.headers);
      if (minPosition === null) return next();
      const entry = cache.get(ctx.url) ?? cache.get(clientEntryKey(clientKey(ctx.req), ctx.url));
      if (entry === undefined) return next();
      // A verification kept while the registry was fresh is not given once it is not (a partition, a stopped projector).
      const serving = entry.policy.serving(entry, minPosition);
      if (serving === undefined) return next();
      // The metrics read the route template where the router leaves it.
      ctx['_matchedRoute'] = entry.route;
      if (entry.limit === undefined) return sendKept(ctx, entry, serving);
      return entry.limit(ctx, async () => sendKept(ctx, entry, serving));
    },
    record(ctx, { perClient, ...answer }) {
      cache.set(perClient ? clientEntryKey(clientKey(ctx.req), ctx.url) : ctx.url, answer);
    },
  };
}

/** Sends a kept answer as its route would, its time renewed when it carries one. */
function sendKept(ctx: Context, entry: CachedAnswer, serving: Serving): void {
  const bytes = 'template' in entry.answer ? renewTime(entry.answer, entry.policy.now()) : entry.answer;
  sendAnswer(ctx, bytes, serving.position, entry.cacheControl, serving.dataAge);
}

/**
 * Sends a rendered answer with the HTTP manners of a public operation (conditional-answer.ts); `dataAge`, when given,
 * as `X-Data-Age` (seconds).
 */
export function sendAnswer(ctx: ParameterizedContext, answer: RenderedAnswer, position: number, cacheControl: string | undefined, dataAge?: number): void {
  const http = conditionalAnswer(answer, {
    position, cacheControl, conditional: ctx.method === 'GET' || ctx.method === 'HEAD', ifNoneMatch: ctx.req.headers['if-none-match'],
  });
  const res = ctx.res;
  for (const [name, value] of http.headers) res.setHeader(name, value);
  if (dataAge !== undefined) res.setHeader('x-data-age', String(dataAge));
  ctx.status = http.status;
  if (http.body !== undefined) ctx.body = http.body;
}
