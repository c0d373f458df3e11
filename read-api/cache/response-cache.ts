/**
 * A plain store of kept answers by request key, for the answer caches: what may be kept, and when a kept answer may
 * be given again, is the answer policy's (shared/read-model/public-api/answer-policy.ts), which the caches ask. The store only
 * drops an entry once the policy says its projections no longer stand where it was read (it can never be given
 * again), and is bounded, least recently used entries leaving first, so arbitrary query strings cannot grow memory.
 */
import { type Kept, standsWhereRead } from '../../shared/read-model/public-api/answer-policy.ts';

/** Every entry holds the stamp of the reading its answer came from, and the view of the projections it read. */
export type Stamped = Kept;

export class ResponseCache<V extends Stamped> {
  readonly #entries = new Map<string, V>();

  constructor(readonly maxEntries = 2000) {}

  /** The value cached for `key`, if the projections it read have not moved since. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (!standsWhereRead(entry)) return undefined;
    // Re-inserting marks the entry as most recently used (a Map iterates in insertion order).
    this.#entries.set(key, entry);
    return entry;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    // Over the bound, the map holds at least one key: its first is the least recently used.
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}
