/**
 * A transparency log as the service keeps it, for tests that need a signed checkpoint of a history: its projection
 * built into an in-memory read store, and the publisher signing it.
 */
import type { KeyObject } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { createProjector } from '../../projector/runner.ts';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { frontDoor } from '../../read-api/middleware/front-door.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import { appendAll } from '../projector/support/history.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { DocChange, Projection } from '../../shared/read-model/projections/projection.ts';
import type { TileDoc } from '../../shared/read-model/documents/documents.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { transparencyLogProjection } from '../../shared/read-model/projections/transparency-log.projection.ts';
import { startTransparencyLog, type LogPublisherOptions, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';

export const logProjection = transparencyLogProjection as unknown as Projection;

/**
 * An event store whose history the log's projection writes into a memory read store (`project`), or into another
 * read store (`projectInto`); `startLog` starts a publisher; `close` stops the publishers it started and ends both.
 */
export function logHistory() {
  const eventStore = openSqliteEventStore(':memory:');
  const readStore = createMemoryReadStore();
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const publishers: TransparencyLog[] = [];
  const projectInto = (store: ReadStore) => createProjector({ eventStore, readStore: store, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
  const project = () => projectInto(readStore);
  const startLog = async (options: LogPublisherOptions): Promise<TransparencyLog> => {
    const publisher = await startTransparencyLog(options);
    publishers.push(publisher);
    return publisher;
  };
  const close = async () => {
    for (const publisher of publishers) await publisher.stop();
    await queue.close();
    await eventStore.close();
  };
  return { eventStore, readStore, project, projectInto, startLog, close };
}

/** A logger at info whose lines are kept, parsed, in `lines`. */
export function capturingLogger<Line>(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  return { logger: pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Line); } }), lines };
}

/**
 * The transparency log projection of a deployment upgraded after `position`: up to it, as the version before the
 * serial index's changes projected it (no `index:` documents, edges without `index_from_start`, which that version's
 * edges never had), this version after it.
 */
export function logProjectionUpgradedAfter(position: number): Projection {
  return {
    ...logProjection,
    apply: (event, docs) => {
      const changes = logProjection.apply(event, docs);
      if (event.position > position) return changes;
      return changes.flatMap((change): DocChange<StoredDoc>[] => {
        if (!('put' in change)) return [change];
        if (change.put._id.startsWith('index:')) return [];
        const { index_from_start: _, ...before } = change.put as TileDoc;
        return [{ put: before }];
      });
    },
  };
}

/** `previousKey`: the outgoing key co-signing during a rotation; `witnesses`: those each checkpoint is submitted to. */
export async function signedLogOf(
  eventStore: EventStore, key: KeyObject, origin: string, previousKey?: KeyObject, witnesses?: LogPublisherOptions['witnesses'], logger = createLogger('silent', 'signed-log'),
): Promise<{ log: TransparencyLog; readStore: ReadStore }> {
  const readStore = createMemoryReadStore();
  await rebuild({ eventStore, readStore, projections: [logProjection] });
  const log = await startTransparencyLog({ readStore, key, previousKey, origin, logger, witnesses });
  return { log, readStore };
}

/**
 * A log whose publisher signed `signed` and looks again only when told (`log.look()`), while its projection holds
 * the groups `ahead` too: events projected, not yet signed. With the position of the last event signed and of the
 * last event of each group ahead.
 */
export async function logAheadOfItsCheckpoint(signed: readonly NewEvent[], ...ahead: (readonly NewEvent[])[]): Promise<{
  events: EventStore; readStore: ReadStore; log: TransparencyLog; signedPosition: number; aheadPositions: number[];
}> {
  const events = openSqliteEventStore(':memory:');
  const readStore = createMemoryReadStore();
  const signedPosition = await appendAll(events, signed);
  await rebuild({ eventStore: events, readStore, projections: [logProjection] });
  const log = await startTransparencyLog({
    readStore, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/watchcat/events', logger: pino({ level: 'silent' }), intervalMs: 600_000,
  });
  const aheadPositions: number[] = [];
  for (const group of ahead) aheadPositions.push(await appendAll(events, group));
  await createProjector({
    eventStore: events, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger: pino({ level: 'silent' }), projections: [logProjection],
  }).catchUp();
  return { events, readStore, log, signedPosition, aheadPositions };
}

/** The log's public routes behind the front door on a loopback port (`minPositionWaitMs`: `MIN_POSITION_WAIT_MS`). */
export async function servedLogRoutes(log: TransparencyLog, minPositionWaitMs?: number): Promise<{ base: string; close(): Promise<void> }> {
  const app = new Koa();
  app.use(frontDoor(pino({ level: 'silent' })));
  app.use(transparencyRoutes(log, minPositionWaitMs));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => { server.close(() => resolve()); }),
  };
}
