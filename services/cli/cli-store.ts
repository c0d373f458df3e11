/**
 * Which event store a `watchcat` command works on, said the same wherever it runs: a relative `DATA_DIR` is read
 * from the project root (the folder of watchcat's package.json), not from the shell's folder, where it would
 * silently open a new, empty store.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteEventFile } from '../../shared/adapters/event-store.factory.ts';
import type { Config } from '../../shared/config/config.ts';

/** The folder holding watchcat's package.json, above this file (in the sources or in dist/). */
export function projectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let folder = from; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'watchcat') return folder;
    if (dirname(folder) === folder) return process.cwd();
  }
}

/** The configuration with `DATA_DIR` absolute, a relative one taken from the project root. */
export function withProjectDataDir(config: Config, root: string = projectRoot()): Config {
  return isAbsolute(config.DATA_DIR) ? config : { ...config, DATA_DIR: resolve(root, config.DATA_DIR) };
}

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
