/**
 * One log line per public request, written once its answer is final: method, path (no query: search terms stay out
 * of the logs), status, duration and request id. `sample` (REQUEST_LOG_SAMPLE, 0..1) is the share of requests
 * logged, for a busy API whose logs would cost more than they tell; a 5xx, and a 499 (the client hung up before its
 * body was read), is always logged, whatever the sample.
 * The request id is the client's or proxy's `X-Request-Id` when it is a plain token, else a new one, made only for
 * a line that is written (`requestIds`). The fields are serialized here and the line written by `infoLineWriter`
 * (shared/logging/logger.ts): a line on every request must cost next to nothing (issue 42).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { CLIENT_CLOSED_REQUEST } from '../../shared/read-model/public-api/validation/request-body.ts';
import { infoLineWriter, type Logger } from '../../shared/logging/logger.ts';
import { jsonString } from '../../shared/text/json-string.ts';

/** A token written as it is, between quotes: nothing in it needs escaping in JSON. */
const PLAIN_ID = /^[\w.-]{1,100}$/;

/** The path a log line names: the raw target's, without its query (Koa's `ctx.path` throws on targets it cannot parse). */
export function loggedPath(ctx: Context): string {
  const target = ctx.req.url ?? '';
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/**
 * The ids this process makes for requests that bring none: shaped as a UUID, a random prefix drawn once and then a
 * count (48 bits of it), so that ids of different processes do not meet, and making one is not a draw of randomness.
 */
export function requestIds(): () => string {
  const prefix = randomUUID().slice(0, 24);
  let count = 0;
  return () => {
    count += 1;
    return prefix + count.toString(16).padStart(12, '0');
  };
}

/** Milliseconds rounded to hundredths, as JSON writes the number (12.3, 0.05, 7), by integer arithmetic alone. */
export function hundredthsText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  const whole = Math.trunc(hundredths / 100);
  const fraction = hundredths - whole * 100;
  if (fraction === 0) return `${whole}`;
  return fraction % 10 === 0 ? `${whole}.${fraction / 10}` : `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

export function requestLog(logger: Logger, sample: number, random: () => number = Math.random): Middleware {
  const writeLine = infoLineWriter(logger, 'request');
  const newId = requestIds();
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // Nothing is made for a line the logger's level would drop (LOG_LEVEL=warn, say).
      const status = ctx.status;
      const kept = status >= 500 || status === CLIENT_CLOSED_REQUEST || (sample > 0 && random() < sample);
      if (kept && logger.isLevelEnabled('info')) {
        const presented = ctx.req.headers['x-request-id'];
        const id = typeof presented === 'string' && PLAIN_ID.test(presented) ? presented : newId();
        // The method is an HTTP token (Node's parser refuses any other), which JSON writes as it is.
        writeLine(`"method":"${ctx.method}","path":${jsonString(loggedPath(ctx))},"status":${status},"ms":${hundredthsText(performance.now() - started)},"request_id":"${id}"`);
      }
    }
  };
}
