/**
 * Which event store a `watchcat` command works on, in words, and whether it is there. A relative `DATA_DIR` is read
 * from the project root, as every process reads it (shared/config/project-data-dir.ts).
 */
import { existsSync } from 'node:fs';
import { sqliteEventFile } from '../../shared/adapters/event-store.factory.ts';
import type { Config } from '../../shared/config/config.ts';

/** The store in words: the SQLite file, or EventStoreDB at its address without credentials. */
export function describeStore(config: Config): string {
  if (!config.EVENTSTORE_URL) return sqliteEventFile(config);
  const url = URL.parse(config.EVENTSTORE_URL);
  if (url === null) return 'EventStoreDB (EVENTSTORE_URL)';
  return `EventStoreDB at ${url.host}`;
}

/** Whether the store exists: an EventStoreDB server is taken to; a SQLite file must be there. */
export function storeExists(config: Config): boolean {
  return Boolean(config.EVENTSTORE_URL) || existsSync(sqliteEventFile(config));
}


