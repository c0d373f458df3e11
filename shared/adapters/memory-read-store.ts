/**
 * The in-memory read store (the embedded default): documents in Maps by `_id`, secondary indexes on the equality
 * keys the read API uses, filters compiled to closures with mingo as the reference for anything beyond the simple
 * subset, script operators refused. It holds nothing across restarts: the projector rebuilds it from the events.
 *
 * Documents returned are deep-frozen and shared, not copied: reading costs nothing, and a caller that tries to
 * change one gets a TypeError instead of silently changing the store. Spread or `structuredClone` to derive a
 * new document.
 */
import type { FindOptions, Filter, ReadStore, RebuildTarget, StoredDoc, WriteOp } from '../ports/read-store.ts';
import type { ReadCollection } from '../read-models/documents.ts';
import { LOOKUP_FIELDS, multikeyFields } from '../read-models/indexes.ts';
import { DocTable } from './memory-read-store/doc-table.ts';

/** A table with the lookups of the collection's declared indexes (shared/read-models/indexes.ts). */
const newTable = (collection: ReadCollection) => new DocTable(LOOKUP_FIELDS[collection], multikeyFields(collection));

export function createMemoryReadStore(): ReadStore {
  const tables = new Map<ReadCollection, DocTable>();
  const tableOf = (collection: ReadCollection): DocTable => {
    let table = tables.get(collection);
    if (!table) tables.set(collection, (table = newTable(collection)));
    return table;
  };

  return {
    find: async <D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions) =>
      tableOf(collection).find(filter, options) as D[],
    count: async (collection, filter) => tableOf(collection).count(filter),
    get: async <D extends StoredDoc>(collection: ReadCollection, id: string) => tableOf(collection).get(id) as D | null,
    getMany: async <D extends StoredDoc>(collection: ReadCollection, ids: string[]) => getMany(tableOf(collection), ids) as D[],
    write: async (collection, ops) => tableOf(collection).write(ops),
    beginRebuild: async (collection) => rebuildTarget(newTable(collection), (table) => {
      tables.set(collection, table);
    }),
    ping: async () => {},
    close: async () => {
      tables.clear();
    },
  };
}

function getMany(table: DocTable, ids: string[]): StoredDoc[] {
  const docs: StoredDoc[] = [];
  for (const id of ids) {
    const doc = table.get(id);
    if (doc) docs.push(doc);
  }
  return docs;
}

/** A generation nobody reads until `switchTo` swaps it in whole; after `switchTo` or `abandon` it is closed. */
function rebuildTarget(table: DocTable, swapIn: (table: DocTable) => void): RebuildTarget {
  let open = true;
  const live = (): DocTable => {
    if (!open) throw new Error('this rebuild generation was already switched to or abandoned');
    return table;
  };
  return {
    write: async (ops: WriteOp[]) => live().adopt(ops),
    get: async <D extends StoredDoc>(id: string) => live().get(id) as D | null,
    getMany: async <D extends StoredDoc>(ids: string[]) => getMany(live(), ids) as D[],
    find: async <D extends StoredDoc>(filter: Filter, options?: FindOptions) => live().find(filter, options) as D[],
    switchTo: async () => {
      swapIn(live());
      open = false;
    },
    abandon: async () => {
      open = false;
    },
  };
}
