/**
 * The witness's HTTP interface (C2SP tlog-witness): `POST /add-checkpoint` and, for monitors,
 * `GET /<SHA-256 of the origin in hex>/checkpoint`, the latest checkpoint it cosigned. Refusals are plain text; a
 * 409 carries the size it holds as `text/x.tlog.size`. A refusal of a known log's validly signed checkpoint is logged
 * (the spec allows it: it may be evidence of a log's misbehaviour), a fork as an error with an alert.
 */
import Koa from 'koa';
import type { Logger } from '../../shared/logging/logger.ts';
import { PayloadTooLargeError, readBodyText } from '../../shared/read-model/public-api/validation/request-body.ts';
import type { Witness } from './witness.ts';

/** A request holds a checkpoint and at most 63 hashes: a few kilobytes. */
const BODY_LIMIT = 16 * 1024;
const TEXT = 'text/plain; charset=utf-8';
const CHECKPOINT_PATH = /^\/([0-9a-f]{64})\/checkpoint$/;

export function witnessApp(witness: Witness, logger: Logger): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    const monitored = CHECKPOINT_PATH.exec(ctx.path);
    if (ctx.path === '/add-checkpoint' || monitored) {
      const method = monitored ? 'GET' : 'POST';
      if (ctx.method !== method && !(monitored && ctx.method === 'HEAD')) {
        ctx.set('Allow', method);
        ctx.status = 405;
        return;
      }
    }
    if (monitored) {
      const note = witness.checkpoint(monitored[1]!);
      ctx.type = TEXT;
      if (note === undefined) {
        ctx.status = 404;
        ctx.body = 'no checkpoint cosigned for that log\n';
      } else {
        ctx.body = note;
      }
      return;
    }
    if (ctx.path !== '/add-checkpoint') {
      ctx.status = 404;
      return;
    }
    let body: string;
    try {
      body = await readBodyText(ctx.req, BODY_LIMIT);
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) throw error;
      ctx.status = 413;
      return;
    }
    const answer = await witness.addCheckpoint(body);
    ctx.status = answer.status;
    if (answer.status === 200) {
      ctx.type = TEXT;
      ctx.body = answer.cosignatures;
    } else if (answer.status === 409) {
      // Set as a header: Koa's `type` would add a charset the spec's media type does not have.
      ctx.set('Content-Type', 'text/x.tlog.size');
      ctx.body = `${answer.size}\n`;
    } else {
      if (answer.fork) {
        logger.error({ alert: 'witness refused a fork', origin: answer.origin, request: body }, `witness: refused a checkpoint of ${answer.origin}: ${answer.reason}`);
      } else if (answer.status === 422) {
        logger.warn({ origin: answer.origin, request: body }, `witness: refused a checkpoint of ${answer.origin}: ${answer.reason}`);
      }
      ctx.type = TEXT;
      ctx.body = `${answer.reason}\n`;
    }
  });
  return app;
}
