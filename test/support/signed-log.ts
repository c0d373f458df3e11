/**
 * A transparency log as the service keeps it, for tests that need a signed checkpoint of a history: its projection
 * built into an in-memory read store, and the publisher signing it.
 */
import type { KeyObject } from 'node:crypto';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { Projection } from '../../shared/projections/projection.ts';
import { rebuild } from '../../shared/projections/rebuild.ts';
import { transparencyLogProjection } from '../../shared/projections/transparency-log.projection.ts';
import { startTransparencyLog, type LogPublisherOptions, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';

export const logProjection = transparencyLogProjection as unknown as Projection;

/** `previousKey`: the outgoing key co-signing during a rotation; `witnesses`: those each checkpoint is submitted to. */
export async function signedLogOf(
  eventStore: EventStore, key: KeyObject, origin: string, previousKey?: KeyObject, witnesses?: LogPublisherOptions['witnesses'], logger = createLogger('silent', 'signed-log'),
): Promise<{ log: TransparencyLog; readStore: ReadStore }> {
  const readStore = createMemoryReadStore();
  await rebuild({ eventStore, readStore, projections: [logProjection] });
  const log = await startTransparencyLog({ readStore, key, previousKey, origin, logger, witnesses });
  return { log, readStore };
}
