/**
 * Live read models for the projections audit's tests: built as the server builds them, and the operations port's
 * audit route over them.
 */
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import Koa from 'koa';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { adminAuth } from '../../../services/admin/require-scope.ts';
import { createProjector } from '../../../projector/runner.ts';
import { projectionsAuditRoute } from '../../../services/audit/projections-audit.route.ts';
import { writeKnownHistory, type TempStore } from './audit-history.ts';

/** Builds live read models the way the server does: the incremental projector catching up. */
export async function project(eventStore: EventStore, readStore: ReadStore): Promise<ReadStore> {
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const projector = createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), batchSize: 5 });
  await projector.catchUp();
  await queue.close();
  return readStore;
}

export const AUDIT_KEY = 'audit-key-0123456789abcdef0123456789abcdef';
export const CATALOGUE_KEY = 'catalogue-key-0123456789abcdef0123456789ab';

/** The operations port's audit route alone, in this process, over `live` (stopped by the returned function). */
export async function serveAudit(eventStore: EventStore, live: ReadStore, keys = `${CATALOGUE_KEY}:catalogue,${AUDIT_KEY}:audit`, failuresPerMinute = 10) {
  const app = new Koa();
  app.silent = true;
  app.use(projectionsAuditRoute({ eventStore, live, auth: adminAuth({ ADMIN_API_KEYS: keys, ADMIN_AUTH_FAILURES_PER_MINUTE: failuresPerMinute }) }));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The known history in a temporary store, with live read models projected from it in memory. */
export async function liveOverKnownHistory(): Promise<{ store: TempStore; eventStore: EventStore; live: ReadStore }> {
  const store = await writeKnownHistory();
  const eventStore = openSqliteEventStore(store.file);
  return { store, eventStore, live: await project(eventStore, createMemoryReadStore()) };
}

/** Closes what `liveOverKnownHistory` opened, and removes its store. */
export async function closeLive({ store, eventStore, live }: { store: TempStore; eventStore: EventStore; live: ReadStore }): Promise<void> {
  await live.close();
  await eventStore.close();
  rmSync(store.dataDir, { recursive: true, force: true });
}
