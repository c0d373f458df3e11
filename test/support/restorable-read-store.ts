/**
 * A read store whose whole state can be put back to an older copy while it is in use, as a MongoDB restore does
 * under the processes reading it (docs/api.md, "Stores put back from a copy"): an in-memory store behind a proxy that
 * `restore` points at a new store holding the copy.
 */
import { createMemoryReadStore, type MemoryReadState, type MemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ProjectedCollection, ReadStore } from '../../shared/ports/read-store.ts';

export function restorableReadStore(collections: readonly ProjectedCollection[]): {
  store: ReadStore; backup(): MemoryReadState; restore(state: MemoryReadState): void;
} {
  let current: MemoryReadStore = createMemoryReadStore();
  // Its target the first store, whose methods every later one has: a wrapper that lists the methods of the store it
  // is given (controlled-read-store.ts) finds them, and each call goes to the store of the moment.
  const store = new Proxy(current as ReadStore, {
    get: (_target, name) => {
      const value = Reflect.get(current, name) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    store,
    backup: () => structuredClone(current.exportState(collections)),
    restore(state) {
      const restored = createMemoryReadStore();
      restored.importState(structuredClone(state));
      current = restored;
    },
  };
}
