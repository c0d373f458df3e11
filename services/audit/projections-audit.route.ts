/**
 * `GET /audit/projections` on the operations port of a process that holds the live read models in its own memory
 * (the embedded all-in-one server): the same audit `watchcat audit projections` runs against MongoDB, answered
 * as JSON so the CLI can report it. 200 when the read models match the history, 409 otherwise.
 *
 * It rebuilds every read model, so it needs a key with the `audit` scope (failures throttled like the admin API's),
 * runs one at a time (a second caller gets 429 at once), and projects in small batches with a turn of the event
 * loop between them, so the public port keeps answering while it runs.
 *
 * The caller names the history it means (`?history=POSITION:ID`, see history-mark.ts): a server whose store does
 * not hold that event serves another history, and answers 412 instead of auditing it.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { HttpError } from '../admin/json-body.ts';
import { requireScope, type AdminAuth } from '../admin/require-scope.ts';
import { describeDifference } from './compare-read-models.ts';
import { HISTORY_PARAMETER, holdsMark, parseMark } from './history-mark.ts';
import { auditProjections, type AheadOfCheckpoint, type UnreadableSeen } from './projections-audit.ts';

export const PROJECTIONS_AUDIT_PATH = '/audit/projections';
/** Events per batch: about a millisecond of projection work each between two turns of the event loop. */
const AUDIT_BATCH_SIZE = 250;
/** What a caller refused because an audit runs is told to wait: audits of large histories take seconds. */
const BUSY_RETRY_SECONDS = 5;

/** The audit as it crosses HTTP: differences already described in words. */
export interface ProjectionsAuditReport {
  positions: Record<string, number>;
  failed: string[];
  moved: boolean;
  differences: string[];
  /** The events of the history compared that this version cannot read (absent from a server before it said them). */
  unreadable?: UnreadableSeen[];
  /** Live documents past their checkpoint that match the history at their own position (absent likewise). */
  ahead?: AheadOfCheckpoint[];
}

/** Client errors as `{detail}` with the headers set before them; the ops app has no error shaping of its own. */
const answerHttpErrors: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    ctx.status = error.status;
    ctx.body = { detail: error.message };
  }
};

export function projectionsAuditRoute(deps: { eventStore: EventStore; live: ReadStore; auth: AdminAuth }): Middleware {
  const router = new Router();
  let running = false;
  router.get(PROJECTIONS_AUDIT_PATH, answerHttpErrors, requireScope(deps.auth, 'audit'), async (ctx) => {
    const mark = parseMark(String(ctx.query[HISTORY_PARAMETER] ?? ''));
    if (!mark) throw new HttpError(400, `name the history to audit: ?${HISTORY_PARAMETER}=POSITION:EVENT_ID of its newest event`);
    if (!(await holdsMark(deps.eventStore, mark))) {
      throw new HttpError(412, `this server serves another history: it holds no event ${mark.id} at position ${mark.position}`);
    }
    if (running) {
      ctx.set('Retry-After', String(BUSY_RETRY_SECONDS));
      throw new HttpError(429, 'an audit is already running: try again when it has finished');
    }
    running = true;
    try {
      const audit = await auditProjections({ eventStore: deps.eventStore, live: deps.live, batchSize: AUDIT_BATCH_SIZE });
      const report: ProjectionsAuditReport = {
        positions: audit.positions, failed: audit.failed, moved: audit.moved, differences: audit.differences.map(describeDifference),
        unreadable: audit.unreadable, ahead: audit.ahead,
      };
      const clean = report.differences.length === 0 && report.failed.length === 0 && !report.moved;
      ctx.status = clean ? 200 : 409;
      ctx.body = report;
    } finally {
      running = false;
    }
  });
  return router.routes() as Middleware;
}
