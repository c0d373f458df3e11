/**
 * The documents of one batch (batch.ts) as the events change them, in memory, by id and, for the filters that are
 * one equality of a field (`{ reference: 'X' }`), by that field's value: the documents an event reaches by such a
 * filter are found among those holding its value, so the event's cost does not grow with the working set. Any other
 * filter is evaluated against every document of the working set.
 */
import type { StoredDoc, Tombstone, WriteOp } from '../../ports/read-store.ts';
import type { DocPredicate } from '../query/compile-filter.ts';
import { EqualityIndex, type Scalar } from './equality-index.ts';
import type { DocChange } from './projection.ts';

/** What an event reaches by filter: its predicate, and the equality an index can narrow it by, if it is one. */
export interface FilterReach {
  matches: DocPredicate;
  equality?: [path: string, value: Scalar];
}

/** Work done, counted for the tests and benchmarks that bound it. */
export interface BatchWork {
  /** Documents of the working set a filter was evaluated against. */
  examined: number;
}

/**
 * Every document of the batch by id: `null` once deleted; `#deletedAt` keeps the deleting event's position (or the
 * stored tombstone's); `read` the position each id had when read (`null`: nothing stored).
 */
export class WorkingSet {
  readonly #docs = new Map<string, StoredDoc | null>();
  /** Each id's rank in `#docs`: documents reached through an index are given in the order a scan would give them. */
  readonly #rank = new Map<string, number>();
  readonly #indexes = new Map<string, EqualityIndex>();
  readonly #deletedAt = new Map<string, number>();
  readonly read = new Map<string, number | null>();
  readonly #changed = new Set<string>();

  /** `indexedPaths`: the fields of the batch's equality filters. */
  constructor(indexedPaths: Iterable<string>, private readonly work: BatchWork = { examined: 0 }) {
    for (const path of indexedPaths) this.#indexes.set(path, new EqualityIndex(path));
  }

  load(doc: StoredDoc | Tombstone): void {
    this.read.set(doc._id, doc.position);
    if ('_deleted' in doc) {
      this.#set(doc._id, null);
      this.#deletedAt.set(doc._id, doc.position);
    } else this.#set(doc._id, doc);
  }

  /** The existing documents an event touches (by id, then by filter), as they stand now. */
  view(ids: readonly string[], reach: FilterReach | undefined): Map<string, StoredDoc> {
    const view = new Map<string, StoredDoc>();
    for (const id of ids) {
      const doc = this.#docs.get(id);
      if (doc) view.set(id, doc);
    }
    if (reach) for (const { id, doc } of this.#matching(reach)) view.set(id, doc);
    return view;
  }

  record(change: DocChange<StoredDoc>, position: number): void {
    const id = 'put' in change ? change.put._id : change.delete;
    const current = this.#docs.get(id);
    const reflected = current ? current.position : this.#deletedAt.get(id);
    if (reflected !== undefined && reflected >= position) return;
    if ('put' in change) {
      this.#set(id, change.put);
    } else {
      if (current === undefined || current === null) return;
      this.#set(id, null);
      this.#deletedAt.set(id, position);
    }
    this.#changed.add(id);
  }

  /** A document written but never read (no projection does that today) follows the position rule instead. */
  writes(): WriteOp[] {
    return [...this.#changed].map((id): WriteOp => {
      const doc = this.#docs.get(id);
      const op: WriteOp = doc ? { put: doc } : { delete: { _id: id, position: this.#deletedAt.get(id) ?? 0 } };
      return this.read.has(id) ? { ...op, expected: this.read.get(id) ?? null } : op;
    });
  }

  #set(id: string, doc: StoredDoc | null): void {
    const previous = this.#docs.get(id);
    if (previous === undefined) this.#rank.set(id, this.#rank.size);
    this.#docs.set(id, doc);
    for (const index of this.#indexes.values()) index.set(id, doc, previous);
  }

  /** The documents matching, in working-set order; the index only narrows the candidates, the predicate decides. */
  #matching({ matches, equality }: FilterReach): { rank: number; id: string; doc: StoredDoc }[] {
    const index = equality && this.#indexes.get(equality[0]);
    const candidates = index ? index.candidates(equality[1]) : this.#docs.keys();
    const found: { rank: number; id: string; doc: StoredDoc }[] = [];
    let ordered = true;
    for (const id of candidates) {
      const doc = this.#docs.get(id);
      if (!doc) continue;
      this.work.examined += 1;
      if (!matches(doc)) continue;
      const rank = this.#rank.get(id)!;
      if (found.length > 0 && found.at(-1)!.rank > rank) ordered = false;
      found.push({ rank, id, doc });
    }
    // An index holds its ids in the order they were filed, which a change of value in the batch can leave unsorted.
    if (!ordered) found.sort((a, b) => a.rank - b.rank);
    return found;
  }
}
