/**
 * Answers of one table generation, by query: the read API asks the same few queries over and over (a `find` and a
 * `count` of one filter per page), and between two writes their answers cannot change. The owner clears it on
 * every write. Bounded: when full it starts over, which is cheap and keeps the hot queries in after one miss each.
 */
const MAX_ENTRIES = 512;

export class QueryCache<V> {
  readonly #entries = new Map<string, V>();

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): V {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }

  clear(): void {
    if (this.#entries.size > 0) this.#entries.clear();
  }
}

/** A key that tells apart every filter or sort document, regular expressions included (JSON alone drops them). */
export function queryKey(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner instanceof RegExp ? { $regexp: inner.source, flags: inner.flags } : inner);
}
