/**
 * The in-memory read store (the embedded default): documents in Maps by `_id`, secondary indexes on the equality
 * keys the read API uses, filters compiled to closures with mingo as the reference for anything beyond the simple
 * subset, script operators refused. It holds nothing across restarts by itself: the projector rebuilds it from the
 * events, or from a snapshot of its state (`exportState`/`importState`, read-model-snapshot/) and the events after it.
 *
 * Documents returned are deep-frozen and shared, not copied: reading costs nothing, and a caller that tries to
 * change one gets a TypeError instead of silently changing the store. Spread or `structuredClone` to derive a
 * new document.
 */
import {
  GENERATIONS_ID, StaleGenerationError, checkFence, generationName, generationsAmong, liveGenerationOf,
  type ControlDoc, type FindOptions, type Filter, type GenerationStore, type ProjectedCollection, type ReadStore, type ReadView,
  type StoredDoc, type Tombstone,
} from '../ports/read-store.ts';
import type { ReadCollection } from '../read-model/documents/documents.ts';
import { compileFilter } from '../read-model/query/compile-filter.ts';
import { LOOKUP_FIELDS, READ_INDEXES, multikeyFields } from '../read-model/documents/indexes.ts';
import { DocTable } from './memory-read-store/doc-table.ts';
import { deepFreeze } from './memory-read-store/deep-freeze.ts';

/** A table with the lookups of the collection's declared indexes (shared/read-model/documents/indexes.ts). */
const newTable = (collection: ReadCollection) => new DocTable(LOOKUP_FIELDS[collection], multikeyFields(collection));

/** What the store holds, for a snapshot: every control document, and the live generation of some collections. */
export interface MemoryReadState {
  control: ControlDoc[];
  tables: { collection: ProjectedCollection; generation: number; stored: (StoredDoc | Tombstone)[] }[];
}

export interface MemoryReadStore extends ReadStore {
  /** The state now, taken in one step (documents are frozen and shared, so this copies no document). */
  exportState(collections: readonly ProjectedCollection[]): MemoryReadState;
  /** Loads a state into this store, which must be empty (a start from a snapshot). */
  importState(state: MemoryReadState): void;
}

export function createMemoryReadStore(): MemoryReadStore {
  const tables = new Map<string, DocTable>();
  const control = new Map<string, ControlDoc>();
  const liveOf = (collection: ProjectedCollection): number => liveGenerationOf(control.get(GENERATIONS_ID), collection);
  const tableOf = (collection: ProjectedCollection, generation: number): DocTable => {
    const name = generationName(collection, generation);
    let table = tables.get(name);
    if (!table) tables.set(name, (table = newTable(collection)));
    return table;
  };
  const liveTable = (collection: ReadCollection): DocTable | undefined =>
    collection === 'checkpoints' ? undefined : tableOf(collection, liveOf(collection));
  const controlDocs = (): ControlDoc[] => [...control.values()];
  const controlMatching = (filter: Filter): ControlDoc[] => {
    const matches = compileFilter(filter);
    return controlDocs().filter((doc) => matches(doc));
  };
  /** The reads, from the tables `tableFor` names (none: the control documents). */
  const readView = (tableFor: (collection: ReadCollection) => DocTable | undefined): ReadView => ({
    find: async <D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions) => {
      const table = tableFor(collection);
      return (table ? table.find(filter, options) : controlMatching(filter)) as D[];
    },
    count: async (collection, filter) => {
      const table = tableFor(collection);
      return table ? table.count(filter) : controlMatching(filter).length;
    },
    get: async <D extends StoredDoc>(collection: ReadCollection, id: string) => {
      const table = tableFor(collection);
      return (table ? table.get(id) : control.get(id) ?? null) as D | null;
    },
    getMany: async <D extends StoredDoc>(collection: ReadCollection, ids: string[]) => {
      const table = tableFor(collection);
      return ids.flatMap((id) => (table ? table.get(id) : control.get(id)) ?? []) as unknown as D[];
    },
  });
  /**
   * The reads of the live tables as they are now, kept until the pointer changes: one per process and switch, so a
   * snapshot allocates next to nothing. A table dropped after a switch lives on for the snapshots that still hold it.
   */
  let pinned: ReadView | undefined;
  const pinnedTables = (): ((collection: ReadCollection) => DocTable | undefined) => {
    const pinned = new Map<ReadCollection, DocTable | undefined>();
    for (const collection of Object.keys(READ_INDEXES) as ReadCollection[]) pinned.set(collection, liveTable(collection));
    return (collection) => pinned.get(collection);
  };

  const generation = (collection: ProjectedCollection, number: number): GenerationStore => ({
    collection,
    generation: number,
    getStored: async (ids) => ids.flatMap((id) => tableOf(collection, number).getStored(id) ?? []),
    find: async <D extends StoredDoc>(filter: Filter, options?: FindOptions) => tableOf(collection, number).find(filter, options) as D[],
    write: async (ops, options) => {
      const live = liveOf(collection);
      if (number < live) throw new StaleGenerationError(collection, number, live);
      // Checked and written in one synchronous step: no token can be recorded between the two.
      checkFence((id) => control.get(id), options?.fence);
      const table = tableOf(collection, number);
      if (options?.handOver) table.adopt(ops);
      else table.write(ops);
    },
  });
  /** Resetting and dropping are one here: a table is created empty on its first write. */
  const forget = async (collection: ProjectedCollection, number: number): Promise<void> => {
    if (number === liveOf(collection)) throw new Error(`generation ${number} of ${collection} is live`);
    tables.delete(generationName(collection, number));
  };

  return {
    ...readView(liveTable),
    write: async (collection, ops) => tableOf(collection, liveOf(collection)).write(ops),
    generation,
    // The control documents are frozen, so the list taken now is this moment's, whatever is set after.
    snapshot: async () => ({ ...(pinned ??= readView(pinnedTables())), control: controlDocs() }),
    resetGeneration: forget,
    dropGeneration: forget,
    storedGenerations: async (collection) => generationsAmong(collection, tables.keys()),
    readControl: async () => controlDocs(),
    setControl: async (doc, condition, insertIfAbsent, onWritten) => {
      const stored = control.get(doc._id);
      if (stored ? !compileFilter(condition)(stored) : !insertIfAbsent) return false;
      control.set(doc._id, deepFreeze(structuredClone(doc)));
      if (doc._id === GENERATIONS_ID) pinned = undefined;
      onWritten?.();
      return true;
    },
    removeControl: async (id) => {
      control.delete(id);
    },
    exportState: (collections) => ({
      control: controlDocs(),
      tables: collections.map((collection) => {
        const live = liveOf(collection);
        return { collection, generation: live, stored: tableOf(collection, live).stored() };
      }),
    }),
    importState: (state) => {
      if (control.size > 0 || tables.size > 0) throw new Error('a state is imported into an empty store only');
      // Built aside and kept only whole: a state that fails halfway leaves the store empty, never half filled.
      const built = state.tables.map(({ collection, generation: number, stored }) => {
        const table = newTable(collection);
        table.adopt(stored.map((doc) => ('_deleted' in doc ? { delete: { _id: doc._id, position: doc.position } } : { put: doc })));
        return [generationName(collection, number), table] as const;
      });
      for (const [name, table] of built) tables.set(name, table);
      for (const doc of state.control) control.set(doc._id, deepFreeze(doc));
      pinned = undefined;
    },
    ping: async () => {},
    close: async () => {
      pinned = undefined;
      tables.clear();
      control.clear();
    },
  };
}
