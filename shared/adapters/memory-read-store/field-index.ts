/**
 * One lookup of the in-memory store: the `_id`s of the documents by their value of one field (by each element for
 * a multikey field such as the search grams). It holds ids, not documents, so a rewrite of a document whose value
 * there did not change (a price change leaves a watch's ~400 grams as they were) touches nothing here.
 *
 * A multikey field's array takes little room: a rewrite that leaves it as it was stores the previous array again
 * (one array per document however often it is written), and a changed one has its strings replaced by the ones
 * the lookup already holds (one string per distinct key in the whole table).
 */
import { keysOf, type IndexKey } from './index-keys.ts';

const NONE: ReadonlySet<string> = new Set();

export class FieldIndex {
  readonly steps: string[];
  /** The field holds an array: a document is filed under each of its elements. */
  readonly multikey: boolean;
  /** Each key with the ids filed under it; the key is held as the one string documents share for it. */
  readonly #byValue = new Map<IndexKey, { key: IndexKey; ids: Set<string> }>();
  /** Documents whose value there cannot be filed (absent, null, array, object): always candidates. */
  readonly #unindexed = new Set<string>();
  /** Ids filed under or removed from one key (or from the unindexed): what the upkeep of writes costs. */
  filings = 0;

  constructor(field: string, multikey: boolean) {
    this.steps = field.split('.');
    this.multikey = multikey;
  }

  get unindexed(): ReadonlySet<string> {
    return this.#unindexed;
  }

  /** The ids filed under `key`. */
  ids(key: IndexKey): ReadonlySet<string> {
    return this.#byValue.get(key)?.ids ?? NONE;
  }

  /** Every key with its ids (the keys are few next to the documents: the distinct grams, say). */
  *groups(): Generator<[IndexKey, ReadonlySet<string>]> {
    for (const [key, { ids }] of this.#byValue) yield [key, ids];
  }

  /**
   * Before `doc` (not frozen yet) replaces `stored`: when its multikey array holds what the stored one holds, the
   * stored array takes its place; otherwise its strings become the ones already filed.
   */
  share(doc: object, stored: object | undefined): void {
    if (!this.multikey) return;
    const parent = parentAt(doc, this.steps);
    const last = this.steps.at(-1)!;
    const value: unknown = parent?.[last];
    // A frozen one came from the store itself (a stored document handed back to `adopt`): already shared.
    if (!Array.isArray(value) || Object.isFrozen(value) || Object.isFrozen(parent)) return;
    const previous = stored && parentAt(stored, this.steps)?.[last];
    if (Array.isArray(previous) && sameElements(previous, value)) {
      parent![last] = previous;
      return;
    }
    for (let i = 0; i < value.length; i += 1) {
      const filed = this.#byValue.get(value[i] as IndexKey);
      if (filed) value[i] = filed.key;
    }
  }

  add(doc: { _id: string }): void {
    this.#file(doc._id, keysOf(doc, this.steps, this.multikey), undefined);
  }

  remove(doc: { _id: string }): void {
    this.#unfile(doc._id, keysOf(doc, this.steps, this.multikey), undefined);
  }

  /** `doc` replaces `stored` (same `_id`): only the keys that differ are filed or removed. */
  replace(stored: { _id: string }, doc: { _id: string }): void {
    if (this.multikey && parentAt(stored, this.steps)?.[this.steps.at(-1)!] === parentAt(doc, this.steps)?.[this.steps.at(-1)!]) return;
    const before = keysOf(stored, this.steps, this.multikey);
    const after = keysOf(doc, this.steps, this.multikey);
    if (before?.length === 1 && after?.length === 1 && before[0] === after[0]) return;
    if (before && after) {
      const kept = new Set(before);
      const wanted = new Set(after);
      this.#unfile(doc._id, before, wanted);
      this.#file(doc._id, after, kept);
      return;
    }
    if (!before && !after) return;
    this.#unfile(doc._id, before, undefined);
    this.#file(doc._id, after, undefined);
  }

  /** Files `id` under each of `keys` not in `already` (under the unindexed when `keys` is undefined). */
  #file(id: string, keys: readonly IndexKey[] | undefined, already: ReadonlySet<IndexKey> | undefined): void {
    if (!keys) {
      this.#unindexed.add(id);
      this.filings += 1;
      return;
    }
    for (const key of keys) {
      if (already?.has(key)) continue;
      let filed = this.#byValue.get(key);
      if (!filed) this.#byValue.set(key, (filed = { key, ids: new Set() }));
      filed.ids.add(id);
      this.filings += 1;
    }
  }

  #unfile(id: string, keys: readonly IndexKey[] | undefined, still: ReadonlySet<IndexKey> | undefined): void {
    if (!keys) {
      this.#unindexed.delete(id);
      this.filings += 1;
      return;
    }
    for (const key of keys) {
      if (still?.has(key)) continue;
      const filed = this.#byValue.get(key);
      filed?.ids.delete(id);
      if (filed?.ids.size === 0) this.#byValue.delete(key);
      this.filings += 1;
    }
  }
}

function sameElements(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i += 1) if (left[i] !== right[i]) return false;
  return true;
}

/** The object holding the field at `steps`, or undefined when the path does not reach one. */
function parentAt(doc: object, steps: readonly string[]): Record<string, unknown> | undefined {
  let current: unknown = doc;
  for (const step of steps.slice(0, -1)) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
}
