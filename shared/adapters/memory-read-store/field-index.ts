/**
 * One lookup of the in-memory store: the slots of the documents (small integers the table gives them, kept through
 * rewrites) by their value of one field (by each element for a multikey field such as the search grams). It holds
 * slots, not documents, so a rewrite of a document whose value there did not change (a price change leaves a
 * watch's ~400 grams as they were) touches nothing here.
 *
 * A multikey field's array takes little room: a rewrite that leaves it as it was stores the previous array again
 * (one array per document however often it is written), and a changed one has its strings replaced by the ones
 * the lookup already holds (one string per distinct key in the whole table).
 */
import { keysOf, type IndexKey } from './index-keys.ts';
import { SlotPosting } from './slot-posting.ts';

/** The slots filed under one key. */
export interface Slots extends Iterable<number> { readonly size: number }

const NONE: Slots = new SlotPosting();
type Filed = { _id: string };

export class FieldIndex {
  readonly steps: string[];
  /** The field holds an array: a document is filed under each of its elements. */
  readonly multikey: boolean;
  /** Each key with the slots filed under it; the key is held as the one string documents share for it. */
  readonly #byValue = new Map<IndexKey, { key: IndexKey; slots: SlotPosting }>();
  /** Documents whose value there cannot be filed (absent, null, array, object): always candidates. */
  readonly #unindexed = new Set<number>();
  /** Slots filed under or removed from one key (or from the unindexed): what the upkeep of writes costs. */
  filings = 0;

  constructor(field: string, multikey: boolean) {
    this.steps = field.split('.');
    this.multikey = multikey;
  }

  get unindexed(): Slots {
    return this.#unindexed;
  }

  /** The slots filed under `key`. */
  slots(key: IndexKey): Slots {
    return this.#byValue.get(key)?.slots ?? NONE;
  }

  /** Every key with its slots (the keys are few next to the documents: the distinct grams, say). */
  *groups(): Generator<[IndexKey, Slots]> {
    for (const [key, { slots }] of this.#byValue) yield [key, slots];
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

  add(doc: Filed, slot: number): void {
    this.#file(slot, keysOf(doc, this.steps, this.multikey), undefined);
  }

  remove(doc: Filed, slot: number): void {
    this.#unfile(slot, keysOf(doc, this.steps, this.multikey), undefined);
  }

  /** `doc` replaces `stored` in `slot`: only the keys that differ are filed or removed. */
  replace(stored: Filed, doc: Filed, slot: number): void {
    if (this.multikey && parentAt(stored, this.steps)?.[this.steps.at(-1)!] === parentAt(doc, this.steps)?.[this.steps.at(-1)!]) return;
    const before = keysOf(stored, this.steps, this.multikey);
    const after = keysOf(doc, this.steps, this.multikey);
    if (before?.length === 1 && after?.length === 1 && before[0] === after[0]) return;
    if (before && after) {
      const kept = new Set(before);
      const wanted = new Set(after);
      this.#unfile(slot, before, wanted);
      this.#file(slot, after, kept);
      return;
    }
    if (!before && !after) return;
    this.#unfile(slot, before, undefined);
    this.#file(slot, after, undefined);
  }

  /** Files `slot` under each of `keys` not in `already` (under the unindexed when `keys` is undefined). */
  #file(slot: number, keys: readonly IndexKey[] | undefined, already: ReadonlySet<IndexKey> | undefined): void {
    if (!keys) {
      this.#unindexed.add(slot);
      this.filings += 1;
      return;
    }
    for (const key of keys) {
      if (already?.has(key)) continue;
      let filed = this.#byValue.get(key);
      if (!filed) this.#byValue.set(key, (filed = { key, slots: new SlotPosting() }));
      filed.slots.add(slot);
      this.filings += 1;
    }
  }

  #unfile(slot: number, keys: readonly IndexKey[] | undefined, still: ReadonlySet<IndexKey> | undefined): void {
    if (!keys) {
      this.#unindexed.delete(slot);
      this.filings += 1;
      return;
    }
    for (const key of keys) {
      if (still?.has(key)) continue;
      const filed = this.#byValue.get(key);
      filed?.slots.delete(slot);
      if (filed?.slots.size === 0) this.#byValue.delete(key);
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
