/**
 * Values by request key, each valid while the projections it was read from stay where they were: an entry keeps
 * the stamp taken before its data was read and the view of those projections, and is served only while the view's
 * key is the stamp's (read-model-clock.ts). Bounded, least recently used entries leave first, so arbitrary query
 * strings cannot grow memory.
 */
import type { ReadStamp, ReadView } from '../../shared/public-api/read-model-clock.ts';

export interface Stamped {
  /** Taken before the data was read. */
  readonly stamp: ReadStamp;
  /** Where the projections read stand now. */
  readonly view: ReadView;
}

export class ResponseCache<V extends Stamped> {
  readonly #entries = new Map<string, V>();

  constructor(readonly maxEntries = 2000) {}

  /** The value cached for `key`, if the projections it read have not moved since. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.stamp.key !== entry.view().key) return undefined;
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
