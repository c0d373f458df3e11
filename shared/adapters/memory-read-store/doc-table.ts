/**
 * One generation of one read collection in memory: documents by `_id` (O(1) `get`), simple secondary indexes by
 * field value for the equality keys the read API filters on, the position rule of the port's writes, and the
 * answers of recent queries until the next write. Stored documents are private deep-frozen copies, so they are
 * handed out as they are and no reader can change them.
 */
import type { Filter, FindOptions, Sort, StoredDoc, WriteOp } from '../../ports/read-store.ts';
import { compileFilter } from './compile-filter.ts';
import { deepFreeze } from './deep-freeze.ts';
import { QueryCache, queryKey } from './query-cache.ts';
import { sortDocs } from './sort-order.ts';

type IndexKey = string | number | boolean;
type Docs = Map<string, StoredDoc>;

interface FieldIndex {
  steps: string[];
  byValue: Map<IndexKey, Docs>;
  /** Documents whose value there is not a plain scalar (absent, null, array, object): always candidates. */
  unindexed: Docs;
}

export class DocTable {
  readonly #docs: Docs = new Map();
  readonly #indexes = new Map<string, FieldIndex>();
  /** Matching documents by filter key, and sorted ones by filter and sort key. */
  readonly #answers = new QueryCache<readonly StoredDoc[]>();

  constructor(indexedFields: readonly string[]) {
    for (const field of indexedFields) {
      this.#indexes.set(field, { steps: field.split('.'), byValue: new Map(), unindexed: new Map() });
    }
  }

  get(id: string): StoredDoc | null {
    return this.#docs.get(id) ?? null;
  }

  /** Applies the writes in order, storing frozen copies: the writer may go on changing its own documents. */
  write(ops: WriteOp[]): void {
    this.#apply(ops, (doc) => deepFreeze(structuredClone(doc)));
  }

  /**
   * Applies the writes in order, storing the documents themselves frozen in place: for a rebuild generation,
   * whose writer hands every document over. Copying each one was most of a rebuild's write cost; a change the
   * writer still tries afterwards throws, so the store stays as safe as with a copy.
   */
  adopt(ops: WriteOp[]): void {
    this.#apply(ops, deepFreeze);
  }

  #apply(ops: WriteOp[], keep: (doc: StoredDoc) => StoredDoc): void {
    let changed = false;
    try {
      for (const op of ops) {
        if ('put' in op) {
          const stored = this.#docs.get(op.put._id);
          if (stored && stored.position >= op.put.position) continue;
          if (stored) this.#unindex(stored);
          const doc = keep(op.put);
          this.#docs.set(doc._id, doc);
          this.#index(doc);
        } else {
          const stored = this.#docs.get(op.delete._id);
          if (!stored || stored.position >= op.delete.position) continue;
          this.#unindex(stored);
          this.#docs.delete(stored._id);
        }
        changed = true;
      }
    } finally {
      // A bulk is applied before anyone reads, so its answers are dropped once, even when an op throws midway.
      if (changed) this.#answers.clear();
    }
  }

  find(filter: Filter, options: FindOptions = {}): StoredDoc[] {
    const sorted = options.sort && Object.keys(options.sort).length > 0 ? this.#sorted(filter, options.sort) : this.#matching(filter);
    const start = options.skip ?? 0;
    // MongoDB reads a limit of 0 as "no limit". Always a fresh array: the cached one must stay as it is.
    return sorted.slice(start, options.limit ? start + options.limit : undefined);
  }

  count(filter: Filter): number {
    return this.#matching(filter).length;
  }

  #sorted(filter: Filter, sort: Sort): readonly StoredDoc[] {
    const key = `${queryKey(filter)} ${queryKey(sort)}`;
    return this.#answers.get(key) ?? this.#answers.set(key, sortDocs(this.#matching(filter), sort));
  }

  #matching(filter: Filter): readonly StoredDoc[] {
    const key = queryKey(filter);
    const cached = this.#answers.get(key);
    if (cached) return cached;
    const predicate = compileFilter(filter);
    const result: StoredDoc[] = [];
    for (const doc of this.#candidates(filter)) if (predicate(doc)) result.push(doc);
    return this.#answers.set(key, result);
  }

  /**
   * The smallest set the indexes allow for the filter's top-level equalities (`_id` included); every candidate is
   * still tested against the whole filter, so an index only ever narrows, never decides.
   */
  #candidates(filter: Filter): Iterable<StoredDoc> {
    const byId = equalityKeys(filter['_id']);
    if (byId) return new Set(byId.flatMap((id) => this.#docs.get(id as string) ?? []));
    let best: Docs[] | undefined;
    let bestSize = Infinity;
    for (const [field, index] of this.#indexes) {
      const keys = equalityKeys(filter[field]);
      if (!keys) continue;
      const groups = [index.unindexed, ...keys.flatMap((key) => index.byValue.get(key) ?? [])];
      const size = groups.reduce((sum, group) => sum + group.size, 0);
      if (size < bestSize) [best, bestSize] = [groups, size];
    }
    if (!best) return this.#docs.values();
    const nonEmpty = best.filter((group) => group.size > 0);
    if (nonEmpty.length === 1) return nonEmpty[0]!.values();
    // Several groups may hold one document twice (`$in` with a repeated value): a Set keeps it once.
    return new Set(nonEmpty.flatMap((group) => [...group.values()]));
  }

  #index(doc: StoredDoc): void {
    for (const index of this.#indexes.values()) {
      const key = indexKey(doc, index.steps);
      if (key === undefined) {
        index.unindexed.set(doc._id, doc);
        continue;
      }
      let docs = index.byValue.get(key);
      if (!docs) index.byValue.set(key, (docs = new Map()));
      docs.set(doc._id, doc);
    }
  }

  #unindex(doc: StoredDoc): void {
    for (const index of this.#indexes.values()) {
      const key = indexKey(doc, index.steps);
      if (key === undefined) {
        index.unindexed.delete(doc._id);
        continue;
      }
      const docs = index.byValue.get(key);
      docs?.delete(doc._id);
      if (docs?.size === 0) index.byValue.delete(key);
    }
  }
}

function indexKey(doc: object, steps: string[]): IndexKey | undefined {
  let current: unknown = doc;
  for (const step of steps) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return isIndexKey(current) ? current : undefined;
}

/** The values a top-level condition requires by equality (`v`, `{$eq: v}`, `{$in: [...]}`), or undefined. */
function equalityKeys(condition: unknown): IndexKey[] | undefined {
  if (isIndexKey(condition)) return [condition];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  if (Object.keys(condition).length !== 1) return undefined;
  const { $eq, $in } = condition as { $eq?: unknown; $in?: unknown };
  if (isIndexKey($eq)) return [$eq];
  if (Array.isArray($in) && $in.every(isIndexKey)) return $in;
  return undefined;
}

function isIndexKey(value: unknown): value is IndexKey {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));
}
