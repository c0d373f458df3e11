/**
 * Picks the read store from the configuration: MongoDB when `MONGODB_URL` is set, in memory otherwise. Only the
 * chosen engine's module (and its client library) is loaded.
 */
import type { Config } from '../config/config.ts';
import type { ReadStore } from '../ports/read-store.ts';

export async function createReadStore(config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB'>): Promise<ReadStore> {
  if (config.MONGODB_URL) {
    const { createMongoReadStore } = await import('./mongodb-read-store.ts');
    return createMongoReadStore(config.MONGODB_URL, config.MONGODB_DB);
  }
  const { createMemoryReadStore } = await import('./memory-read-store.ts');
  return createMemoryReadStore();
}
