/**
 * Answer replay, in front of Koa: a GET whose exact URL the operations answered at the current read-model
 * position is answered again from the bytes they produced, with everything a request costs besides (rate limits,
 * metrics, the front door's headers, ETag and 304), straight on Node's response. Everything else (a first request,
 * errors, other methods, discovery files) goes through Koa. The answers are the operations' own: Koa's route
 * records them as it sends them (routes.ts), and the replay adds nothing an answer through Koa would not carry.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../shared/logging/logger.ts';
import { frontHeaders, JSON_TYPE } from '../middleware/front-door.ts';
import type { RequestRecorder } from '../ops/metrics.ts';
import { type Admission, admissionHeaders, type RateLimits, refusalBody } from '../rate-limit/rate-limits.ts';
import type { ReadModelClock } from '../read-model-clock.ts';
import { conditionalAnswer } from './conditional-answer.ts';
import { type RenderedAnswer, renewTime, type TimedAnswer } from './rendered-answer.ts';
import type { ResponseCache } from './response-cache.ts';

export interface ReplayEntry {
  answer: RenderedAnswer | TimedAnswer;
  /** The route template, as the metrics label it (`/api/public/catalogue/:reference`). */
  route: string;
  cacheControl: string | undefined;
  /** Counts against the verification limits too. */
  verification: boolean;
  /** Replayed to this client only: one client's timing must not tell it what another has just verified. */
  client: string | undefined;
}

export type ReplayCache = ResponseCache<ReplayEntry>;

export interface AnswerReplayDeps {
  cache: ReplayCache;
  clock: ReadModelClock;
  rateLimits: RateLimits;
  record?: RequestRecorder;
  logger: Logger;
}

/** Answers `req` if it can and says so; false leaves the request untouched for Koa. */
export type AnswerReplay = (req: IncomingMessage, res: ServerResponse) => boolean;

const INTERNAL = Buffer.from('{"detail":"Internal Server Error"}');

export function answerReplay({ cache, clock, rateLimits, record, logger }: AnswerReplayDeps): AnswerReplay {
  return (req, res) => {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const position = clock.current();
    const entry = cache.get(req.url, position);
    if (entry === undefined) return false;
    const client = rateLimits.clientKey(req);
    if (entry.client !== undefined && entry.client !== client) return false;
    const started = process.hrtime.bigint();
    const finish = (admission: Admission) => {
      const { status, route } = write(req, res, entry, position, admission);
      record?.('GET', route, status, Number(process.hrtime.bigint() - started) / 1e9);
    };
    const fail = (error: unknown) => {
      logger.error({ err: error, method: req.method, url: req.url }, 'request failed');
      // Past the head, the answer can only be cut short.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, [...frontHeaders(req.headers.origin), ['Content-Type', JSON_TYPE]].flat()).end(INTERNAL);
      record?.('GET', entry.route, 500, Number(process.hrtime.bigint() - started) / 1e9);
    };
    try {
      const admission = rateLimits.admit(client, entry.verification);
      if (admission instanceof Promise) admission.then(finish).catch(fail);
      else finish(admission);
    } catch (error) {
      fail(error);
    }
    return true;
  };
}

function write(req: IncomingMessage, res: ServerResponse, entry: ReplayEntry, position: number, admission: Admission) {
  const headers: string[] = [];
  for (const [name, value] of frontHeaders(req.headers.origin)) headers.push(name, value);
  for (const [name, value] of admissionHeaders(admission)) headers.push(name, value);
  if (admission.refused) {
    const body = refusalBody(admission.decision);
    headers.push('Content-Type', JSON_TYPE, 'Content-Length', String(body.length));
    res.writeHead(429, headers).end(body);
    // Koa refuses a request over the general limit before routing it, so its metrics know no route for it.
    return { status: 429, route: admission.decision.name === 'general' ? undefined : entry.route };
  }
  const answer = 'template' in entry.answer ? renewTime(entry.answer, new Date()) : entry.answer;
  const http = conditionalAnswer(answer, {
    position, cacheControl: entry.cacheControl, conditional: true, ifNoneMatch: req.headers['if-none-match'],
  });
  for (const [name, value] of http.headers) headers.push(name, value);
  if (http.body === undefined) {
    res.writeHead(http.status, headers).end();
  } else {
    headers.push('Content-Length', String(http.body.length));
    res.writeHead(http.status, headers).end(http.body);
  }
  return { status: http.status, route: entry.route };
}
