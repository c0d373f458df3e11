/**
 * For a test that replaces a store's reads (to count them, slow them or make them fail): the store's request
 * snapshots become the store itself, so every read of a request goes through the replaced ones. Each read then
 * takes the live generation of its moment, which these tests, with no rebuild, do not tell apart.
 */
import type { ReadStore } from '../../shared/ports/read-store.ts';

export function readsThrough<S extends ReadStore>(store: S): S {
  store.snapshot = async () => ({ ...store, control: await store.readControl() });
  return store;
}
