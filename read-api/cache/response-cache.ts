/**
 * Values by request key, valid for one read-model position: GET answers only change when the read model moves, so
 * an entry made at position P is served while the clock says P and recomputed after. Bounded, least recently used
 * entries leave first, so arbitrary query strings cannot grow memory.
 */
interface Entry<V> {
  position: number;
  value: V;
}

export class ResponseCache<V> {
  readonly #entries = new Map<string, Entry<V>>();

  constructor(readonly maxEntries = 2000) {}

  /** The value cached for `key` at exactly `position`, if any. */
  get(key: string, position: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.position !== position) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-inserting marks the entry as most recently used (a Map iterates in insertion order).
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, position: number, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { position, value });
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
