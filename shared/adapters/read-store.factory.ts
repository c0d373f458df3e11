/** Picks the read store from the configuration: MongoDB when `MONGODB_URL` is set, in memory otherwise. */
import type { Config } from '../config/config.ts';
import type { ReadStore } from '../ports/read-store.ts';
import { createMemoryReadStore } from './memory-read-store.ts';
import { createMongoReadStore } from './mongodb-read-store.ts';

export async function createReadStore(config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB'>): Promise<ReadStore> {
  return config.MONGODB_URL ? createMongoReadStore(config.MONGODB_URL, config.MONGODB_DB) : createMemoryReadStore();
}
