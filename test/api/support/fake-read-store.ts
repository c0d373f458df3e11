/**
 * A minimal ReadStore over arrays, evaluating the read API's MongoDB filter and sort documents with mingo, for the
 * API tests. Writes replace documents by `_id` without the position rule: tests put exactly what they mean.
 */
import { Query } from 'mingo';
import type { FindOptions, Filter, ReadStore, StoredDoc, WriteOp } from '../../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../../shared/read-models/documents.ts';

export interface FakeReadStore extends ReadStore {
  /** Counts `find`, `count`, `get` and `getMany` calls, to prove what the cache spares. */
  queries: number;
  /** Makes every query reject with this error until cleared. */
  failWith: Error | null;
}

export function createFakeReadStore(): FakeReadStore {
  const collections = new Map<ReadCollection, Map<string, StoredDoc>>();
  const docsOf = (name: ReadCollection) => {
    let docs = collections.get(name);
    if (!docs) collections.set(name, (docs = new Map()));
    return docs;
  };
  const query = <T>(run: () => T): Promise<T> => {
    store.queries++;
    if (store.failWith) return Promise.reject(store.failWith);
    return Promise.resolve(structuredClone(run()));
  };
  const find = (name: ReadCollection, filter: Filter, options: FindOptions = {}) => {
    let cursor = new Query(filter).find<StoredDoc>([...docsOf(name).values()]);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return cursor.all();
  };
  const store: FakeReadStore = {
    queries: 0,
    failWith: null,
    find: <D extends StoredDoc>(name: ReadCollection, filter: Filter, options?: FindOptions) =>
      query(() => find(name, filter, options) as D[]),
    count: (name, filter) => query(() => find(name, filter).length),
    get: <D extends StoredDoc>(name: ReadCollection, id: string) => query(() => (docsOf(name).get(id) ?? null) as D | null),
    getMany: <D extends StoredDoc>(name: ReadCollection, ids: string[]) =>
      query(() => ids.flatMap((id) => docsOf(name).get(id) ?? []) as D[]),
    write: async (name: ReadCollection, ops: WriteOp[]) => {
      for (const op of ops) {
        if ('put' in op) docsOf(name).set(op.put._id, structuredClone(op.put));
        else docsOf(name).delete(op.delete._id);
      }
    },
    beginRebuild: () => Promise.reject(new Error('not supported by the fake read store')),
    ping: async () => {},
    close: async () => {},
  };
  return store;
}
