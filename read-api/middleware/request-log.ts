/**
 * One log line per public request, written once its answer is final: method, path (no query: search terms stay out
 * of the logs), status, duration and request id. `sample` (REQUEST_LOG_SAMPLE, 0..1) is the share of requests
 * logged, for a busy API whose logs would cost more than they tell; a 5xx, and a 499 (the client hung up before its
 * body was read), is always logged, whatever the sample.
 * The request id is the client's or proxy's `X-Request-Id` when it is a plain token, else a new one, made only for
 * a line that is written. The fields are serialized here and the line written by `infoLineWriter`
 * (shared/logging/logger.ts): a line on every request must cost next to nothing (issue 42).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { CLIENT_CLOSED_REQUEST } from '../../shared/read-model/public-api/validation/request-body.ts';
import { infoLineWriter, type Logger } from '../../shared/logging/logger.ts';

/** A token written as it is, between quotes: nothing in it needs escaping in JSON. */
const PLAIN_ID = /^[\w.-]{1,100}$/;

/** The path a log line names: the raw target's, without its query (Koa's `ctx.path` throws on targets it cannot parse). */
export function loggedPath(ctx: Context): string {
  return (ctx.req.url ?? '').split('?', 1)[0] ?? '';
}

export function requestLog(logger: Logger, sample: number, random: () => number = Math.random): Middleware {
  const writeLine = infoLineWriter(logger);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // Nothing is made for a line the logger's level would drop (LOG_LEVEL=warn, say).
      const kept = ctx.status >= 500 || ctx.status === CLIENT_CLOSED_REQUEST || (sample > 0 && random() < sample);
      if (kept && logger.isLevelEnabled('info')) {
        const presented = ctx.get('X-Request-Id');
        const id = PLAIN_ID.test(presented) ? presented : randomUUID();
        const ms = Math.round((performance.now() - started) * 100) / 100;
        writeLine(`"method":${JSON.stringify(ctx.method)},"path":${JSON.stringify(loggedPath(ctx))},"status":${ctx.status},"ms":${ms},"request_id":"${id}"`, 'request');
      }
    }
  };
}
