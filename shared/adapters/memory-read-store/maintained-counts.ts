/**
 * The number of matches of recently counted filters, kept exact through writes: each document written or removed
 * is tested against each kept filter, so asking a kept count again costs nothing however large the table is. Only
 * the first count of a filter reads the table. Bounded, least recently asked first out, because every kept filter
 * adds one test per written document.
 */
import type { DocPredicate } from '../../read-model/query/compile-filter.ts';

const MAX_FILTERS = 32;

interface KeptCount { matches: DocPredicate; count: number }

export class MaintainedCounts {
  readonly #kept = new Map<string, KeptCount>();

  get(key: string): number | undefined {
    const kept = this.#kept.get(key);
    if (!kept) return undefined;
    // Asked again: move it to the back of the eviction order.
    this.#kept.delete(key);
    this.#kept.set(key, kept);
    return kept.count;
  }

  keep(key: string, matches: DocPredicate, count: number): number {
    if (this.#kept.size >= MAX_FILTERS) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(key, { matches, count });
    return count;
  }

  added(doc: object): void {
    for (const kept of this.#kept.values()) if (kept.matches(doc)) kept.count += 1;
  }

  removed(doc: object): void {
    for (const kept of this.#kept.values()) if (kept.matches(doc)) kept.count -= 1;
  }
}
