/**
 * Wraps a real ReadStore for the API tests: counts the queries that reach it (to prove what the answer cache
 * spares) and can make every query fail (to prove how a store failure is answered). Writes pass through.
 */
import type { FindOptions, Filter, ReadStore, StoredDoc } from '../../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../../shared/read-model/documents/documents.ts';

export interface InstrumentedReadStore extends ReadStore {
  /** Counts `find`, `count`, `get` and `getMany` calls. */
  queries: number;
  /** Makes every query reject with this error until cleared. */
  failWith: Error | null;
}

export function instrumentReadStore(inner: ReadStore): InstrumentedReadStore {
  const query = <T>(run: () => Promise<T>): Promise<T> => {
    store.queries++;
    return store.failWith ? Promise.reject(store.failWith) : run();
  };
  const store: InstrumentedReadStore = {
    ...inner,
    queries: 0,
    failWith: null,
    find: <D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions) =>
      query(() => inner.find<D>(collection, filter, options)),
    count: (collection, filter) => query(() => inner.count(collection, filter)),
    get: <D extends StoredDoc>(collection: ReadCollection, id: string) => query(() => inner.get<D>(collection, id)),
    getMany: <D extends StoredDoc>(collection: ReadCollection, ids: string[]) => query(() => inner.getMany<D>(collection, ids)),
    // A request's reads are counted too (each reads the live generation of its moment).
    snapshot: async () => ({ ...store, control: await inner.readControl() }),
  };
  return store;
}
