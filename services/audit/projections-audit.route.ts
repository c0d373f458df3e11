/**
 * `GET /audit/projections` on the operations port of a process that holds the live read models in its own memory
 * (the embedded all-in-one server): the same audit `watchcat audit projections` runs against MongoDB, answered
 * as JSON so the CLI can report it. 200 when the read models match the history, 409 otherwise.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { describeDifference } from './compare-read-models.ts';
import { auditProjections } from './projections-audit.ts';

export const PROJECTIONS_AUDIT_PATH = '/audit/projections';

/** The audit as it crosses HTTP: differences already described in words. */
export interface ProjectionsAuditReport {
  positions: Record<string, number>;
  failed: string[];
  moved: boolean;
  differences: string[];
}

export function projectionsAuditRoute(deps: { eventStore: EventStore; live: ReadStore }): Middleware {
  const router = new Router();
  router.get(PROJECTIONS_AUDIT_PATH, async (ctx) => {
    const audit = await auditProjections({ eventStore: deps.eventStore, live: deps.live });
    const report: ProjectionsAuditReport = {
      positions: audit.positions, failed: audit.failed, moved: audit.moved, differences: audit.differences.map(describeDifference),
    };
    const clean = report.differences.length === 0 && report.failed.length === 0 && !report.moved;
    ctx.status = clean ? 200 : 409;
    ctx.body = report;
  });
  return router.routes() as Middleware;
}
