/**
 * The one place that picks the event store engine from the configuration. Each engine's module (and its client
 * library) is loaded only when chosen, so the embedded mode and every `watchcat` call skip loading the
 * EventStoreDB client.
 */
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import type { EventStore } from '../ports/event-store.ts';

/** EventStoreDB when `EVENTSTORE_URL` is set, otherwise the SQLite file `events.sqlite3` under `DATA_DIR`. */
export async function openEventStore(config: Config): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    const { openEventStoreDbEventStore } = await import('./eventstoredb-event-store.ts');
    return openEventStoreDbEventStore(config.EVENTSTORE_URL);
  }
  const { openSqliteEventStore } = await import('./sqlite-event-store.ts');
  return openSqliteEventStore(sqliteEventFile(config));
}

/** The embedded store's file (auditors read its hash chain directly). */
export function sqliteEventFile(config: Config): string {
  return join(config.DATA_DIR, 'events.sqlite3');
}
