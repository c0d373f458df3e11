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
import type { EventStore } from '../../shared/ports/event-store.ts';
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
