/**
 * A batch's working set by the value of one field (`reference`, `collection.code`), for the filters that are one
 * equality of that field to a string, number or boolean: an event reaching documents by such a filter examines the
 * documents holding its value, not the whole working set. A document with an array on the path is matched by
 * MongoDB's array rules (through sub-documents, against elements), which only the filter's predicate decides: it is
 * a candidate for every value. A document holding no such value there (absent, null, an object) matches no such
 * equality and is filed nowhere.
 */
import type { StoredDoc } from '../../ports/read-store.ts';

export type Scalar = string | number | boolean;

const ON_ARRAY = Symbol('an array on the path');
type Key = Scalar | typeof ON_ARRAY;

export class EqualityIndex {
  readonly #steps: string[];
  readonly #byKey = new Map<Key, Set<string>>();

  constructor(path: string) {
    this.#steps = path.split('.');
  }

  /** Files `doc` (`null`: deleted, filed nowhere) under `id` in place of `previous`, the document `id` held until now. */
  set(id: string, doc: StoredDoc | null, previous: StoredDoc | null | undefined): void {
    const before = previous ? keyAt(previous, this.#steps) : undefined;
    const after = doc ? keyAt(doc, this.#steps) : undefined;
    if (before === after) return;
    if (before !== undefined) {
      const ids = this.#byKey.get(before)!;
      ids.delete(id);
      if (ids.size === 0) this.#byKey.delete(before);
    }
    if (after !== undefined) {
      let ids = this.#byKey.get(after);
      if (!ids) this.#byKey.set(after, (ids = new Set()));
      ids.add(id);
    }
  }

  /** The ids whose document may equal `value` there: those holding it, then those with an array on the path. */
  *candidates(value: Scalar): Generator<string> {
    yield* this.#byKey.get(value) ?? [];
    yield* this.#byKey.get(ON_ARRAY) ?? [];
  }
}

/** The value at the path when it is a scalar; `ON_ARRAY` when an array lies on or at the end of it. */
function keyAt(doc: StoredDoc, steps: readonly string[]): Key | undefined {
  let current: unknown = doc;
  for (const step of steps) {
    if (Array.isArray(current)) return ON_ARRAY;
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  if (Array.isArray(current)) return ON_ARRAY;
  return typeof current === 'string' || typeof current === 'number' || typeof current === 'boolean' ? current : undefined;
}
