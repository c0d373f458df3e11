/** The one place that picks the event store engine from the configuration. */
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import type { EventStore } from '../ports/event-store.ts';
import { openEventStoreDbEventStore } from './eventstoredb-event-store.ts';
import { openSqliteEventStore } from './sqlite-event-store.ts';

/** EventStoreDB when `EVENTSTORE_URL` is set, otherwise the SQLite file `events.sqlite3` under `DATA_DIR`. */
export function openEventStore(config: Config): EventStore {
  if (config.EVENTSTORE_URL) return openEventStoreDbEventStore(config.EVENTSTORE_URL);
  return openSqliteEventStore(sqliteEventFile(config));
}

/** The embedded store's file (auditors read its hash chain directly). */
export function sqliteEventFile(config: Config): string {
  return join(config.DATA_DIR, 'events.sqlite3');
}
