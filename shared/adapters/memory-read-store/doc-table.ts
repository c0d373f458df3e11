/**
 * One generation of one read collection in memory: documents by `_id` (O(1) `get`), simple secondary indexes by
 * field value for the equality keys the read API filters on (by each element for a multikey field such as the
 * search grams, narrowing `$all` and prefix conditions too), the position rule of the port's writes, and the
 * answers of recent queries until the next write. Stored documents are private deep-frozen copies, so they are
 * handed out as they are and no reader can change them.
 *
 * Paged sorted queries walk an order kept sorted through writes and stop at the page's end; counts come from the
 * index groups' sizes or from counts kept through writes. Both are created on first use, so a table nobody queries
 * (a rebuild generation, say) pays nothing for them.
 */
import { WriteConflictError, type Filter, type FindOptions, type Sort, type StoredDoc, type Tombstone, type WriteOp } from '../../ports/read-store.ts';
import { compileFilter, type DocPredicate } from '../../read-model/query/compile-filter.ts';
import { deepFreeze } from './deep-freeze.ts';
import { FieldIndex, type Slots } from './field-index.ts';
import { MaintainedCounts } from './maintained-counts.ts';
import { MaintainedOrder, type Sequenced } from './maintained-order.ts';
import { QueryCache, queryKey } from './query-cache.ts';
import { sortDocs } from './sort-order.ts';
import { allKeys, elementKeys, equalityKeys, indexKey, isAll, literalPrefix, type IndexKey } from './index-keys.ts';

type Docs = Map<string, StoredDoc>;
/** The slots of one value of an index (`key` undefined: those it cannot index). */
interface IndexGroup { key: IndexKey | undefined; slots: Slots }

/** Documents a maintained order can cover: one index group, or every document. */
interface OrderedGroup { name: string; holds: (doc: StoredDoc) => boolean }

interface Candidates {
  docs: Iterable<StoredDoc>;
  size: number;
  /** Set when the candidates are exactly the documents of one group. */
  group?: OrderedGroup;
}

interface KeptOrder { order: MaintainedOrder; holds: OrderedGroup['holds'] }

const EVERY_DOC: OrderedGroup = { name: '*', holds: () => true };

/** Orders kept per table: each costs the later writes to its group a binary-search insert and remove. */
const MAX_ORDERS = 32;
/** Below this many candidates, sorting the matches is as cheap as a walk and keeps no order alive. */
const MIN_WALKED_CANDIDATES = 256;

export class DocTable {
  readonly #docs: Docs = new Map();
  /** Each document's slot, kept through rewrites, and the document in each slot: the lookups file slots. */
  readonly #slotOf = new Map<string, number>();
  readonly #bySlot: (StoredDoc | undefined)[] = [];
  /** Slots of deleted documents, given to the next new ones. */
  readonly #freeSlots: number[] = [];
  /** Positions of deleted documents: never read, but an older write cannot pass them. */
  readonly #tombstones = new Map<string, number>();
  readonly #indexes = new Map<string, FieldIndex>();
  /** Matching documents by filter key, and sorted ones by filter and sort key. */
  readonly #answers = new QueryCache<readonly StoredDoc[]>();
  /** The write sequence number of each document's last put: sorted answers order ties by it. */
  readonly #writeSeq = new Map<string, number>();
  #writes = 0;
  /** Maintained orders by group and sort key, least recently used first. */
  readonly #orders = new Map<string, KeptOrder>();
  readonly #counts = new MaintainedCounts();

  constructor(indexedFields: readonly string[], multikeyFields: ReadonlySet<string> = new Set()) {
    for (const field of indexedFields) {
      this.#indexes.set(field, new FieldIndex(field, multikeyFields.has(field)));
    }
  }

  /** How many times a document was filed under or removed from an index key: what the index upkeep of writes cost. */
  get filings(): number {
    let filings = 0;
    for (const index of this.#indexes.values()) filings += index.filings;
    return filings;
  }

  get(id: string): StoredDoc | null {
    return this.#docs.get(id) ?? null;
  }

  /** The document or tombstone stored under `id`. */
  getStored(id: string): StoredDoc | Tombstone | null {
    const doc = this.#docs.get(id);
    if (doc) return doc;
    const position = this.#tombstones.get(id);
    return position === undefined ? null : { _id: id, position, _deleted: true };
  }

  /** Every document and tombstone stored, for a snapshot of the table (documents are frozen: shared, not copied). */
  stored(): (StoredDoc | Tombstone)[] {
    const all: (StoredDoc | Tombstone)[] = [...this.#docs.values()];
    for (const [id, position] of this.#tombstones) all.push({ _id: id, position, _deleted: true });
    return all;
  }

  /** Applies the writes in order, storing frozen copies: the writer may go on changing its own documents. */
  write(ops: WriteOp[]): void {
    this.#apply(ops, structuredClone);
  }

  /**
   * Applies the writes in order, storing the documents themselves frozen in place: for a rebuild generation,
   * whose writer hands every document over. Copying each one was most of a rebuild's write cost; a change the
   * writer still tries afterwards throws, so the store stays as safe as with a copy.
   */
  adopt(ops: WriteOp[]): void {
    this.#apply(ops, (doc) => doc);
  }

  /** `own` makes the document the table's own (a copy, or the writer's own when handed over), not frozen yet. */
  #apply(ops: WriteOp[], own: (doc: StoredDoc) => StoredDoc): void {
    let changed = false;
    try {
      for (const op of ops) {
        const id = 'put' in op ? op.put._id : op.delete._id;
        const position = 'put' in op ? op.put.position : op.delete.position;
        const stored = this.#docs.get(id);
        const storedPosition = stored?.position ?? this.#tombstones.get(id);
        if (op.expected !== undefined) {
          if ((storedPosition ?? null) !== op.expected) {
            throw new WriteConflictError(id, `expected position ${op.expected}, found ${storedPosition ?? 'none'}`);
          }
        } else if (storedPosition !== undefined && storedPosition >= position) continue;
        // Kept (copied) first: a document that cannot be copied throws before the stored one is touched.
        const doc = 'put' in op ? this.#kept(own(op.put), stored) : undefined;
        // Moved to the end of the table's order, which is thus the order of last writes.
        if (stored) this.#docs.delete(id);
        if (doc) {
          this.#tombstones.delete(id);
          this.#docs.set(id, doc);
          if (stored) this.#reindex(stored, doc);
          else this.#index(doc);
        } else {
          if (stored) this.#unindex(stored);
          this.#tombstones.set(id, position);
        }
        changed = true;
      }
    } finally {
      // A bulk is applied before anyone reads, so its answers are dropped once, even when an op throws midway.
      if (changed) this.#answers.clear();
    }
  }

  find(filter: Filter, options: FindOptions = {}): StoredDoc[] {
    const sort = options.sort && Object.keys(options.sort).length > 0 ? options.sort : undefined;
    const start = options.skip ?? 0;
    // MongoDB reads a limit of 0 as "no limit". Always a fresh array: the cached one must stay as it is.
    const page = sort && options.limit ? this.#walkedPage(filter, sort, start, options.limit) : undefined;
    if (page) return [...page];
    const sorted = sort ? this.#sorted(filter, sort) : this.#matching(filter);
    return sorted.slice(start, options.limit ? start + options.limit : undefined);
  }

  count(filter: Filter): number {
    const key = queryKey(filter);
    // A kept filter was compiled, so checked for script operators, when it was first counted.
    const kept = this.#counts.get(key);
    if (kept !== undefined) return kept;
    const matches = compileFilter(filter);
    return this.#countFromIndex(filter, matches) ?? this.#counts.keep(key, matches, this.#countByScan(filter, matches));
  }

  /**
   * A sorted page walked from the maintained order of the candidates' group up to the page's last document, or
   * undefined where sorting the matches is the way: candidates from no single group (`_id` or `$in` lookups), or a
   * few candidates only. Both order ties by last write.
   */
  #walkedPage(filter: Filter, sort: Sort, skip: number, limit: number): readonly StoredDoc[] | undefined {
    const key = `${queryKey(filter)} ${queryKey(sort)} ${skip} ${limit}`;
    const cached = this.#answers.get(key);
    if (cached) return cached;
    const matches = compileFilter(filter);
    const candidates = this.#candidates(filter);
    const { group } = candidates;
    if (!group || candidates.size < MIN_WALKED_CANDIDATES) return undefined;
    const page: StoredDoc[] = [];
    let skipped = 0;
    for (const doc of this.#orderFor(group, sort, candidates.docs).docs()) {
      if (!matches(doc)) continue;
      if (skipped < skip) skipped += 1;
      else if (page.push(doc) === limit) break;
    }
    return this.#answers.set(key, page);
  }

  /** The maintained order of `group` (whose documents are `docs`) under `sort`, made on first use. */
  #orderFor(group: OrderedGroup, sort: Sort, docs: Iterable<StoredDoc>): MaintainedOrder {
    const key = `${group.name} ${queryKey(sort)}`;
    let kept = this.#orders.get(key);
    if (kept) this.#orders.delete(key);
    else {
      if (this.#orders.size >= MAX_ORDERS) this.#orders.delete(this.#orders.keys().next().value!);
      const sequenced: Sequenced[] = [];
      for (const doc of docs) sequenced.push({ doc, seq: this.#writeSeq.get(doc._id)! });
      kept = { order: new MaintainedOrder(sort, sequenced), holds: group.holds };
    }
    this.#orders.set(key, kept);
    return kept.order;
  }

  /**
   * The count of the empty filter or of one equality on an indexed field, from the sizes of its index groups: a
   * document there matches by construction. Only documents outside the index (an array there, say) are tested.
   */
  #countFromIndex(filter: Filter, matches: DocPredicate): number | undefined {
    const fields = Object.keys(filter);
    if (fields.length === 0) return this.#docs.size;
    const index = fields.length === 1 ? this.#indexes.get(fields[0]!) : undefined;
    const keys = index && equalityKeys(filter[fields[0]!]);
    // A document of a multikey field may hold several of the keys: group sizes would count it more than once.
    if (!index || !keys || (index.multikey && new Set(keys).size > 1)) return undefined;
    let count = 0;
    for (const key of new Set(keys)) count += index.slots(key).size;
    for (const slot of index.unindexed) if (matches(this.#bySlot[slot]!)) count += 1;
    return count;
  }

  #countByScan(filter: Filter, matches: DocPredicate): number {
    let count = 0;
    for (const doc of this.#candidates(filter).docs) if (matches(doc)) count += 1;
    return count;
  }

  #sorted(filter: Filter, sort: Sort): readonly StoredDoc[] {
    const key = `${queryKey(filter)} ${queryKey(sort)}`;
    const seqOf = (doc: StoredDoc) => this.#writeSeq.get(doc._id)!;
    return this.#answers.get(key) ?? this.#answers.set(key, sortDocs(this.#matching(filter), sort, seqOf));
  }

  #matching(filter: Filter): readonly StoredDoc[] {
    const key = queryKey(filter);
    const cached = this.#answers.get(key);
    if (cached) return cached;
    const predicate = compileFilter(filter);
    const result: StoredDoc[] = [];
    for (const doc of this.#candidates(filter).docs) if (predicate(doc)) result.push(doc);
    return this.#answers.set(key, result);
  }

  /**
   * The smallest set the indexes allow for the filter's top-level equalities (`_id` included); every candidate is
   * still tested against the whole filter, so an index only ever narrows, never decides.
   */
  #candidates(filter: Filter): Candidates {
    const byId = equalityKeys(filter['_id']);
    if (byId) {
      const docs = new Set(byId.flatMap((id) => this.#docs.get(id as string) ?? []));
      return { docs, size: docs.size };
    }
    let best: { field: string; index: FieldIndex; groups: IndexGroup[] } | undefined;
    let bestSize = Infinity;
    for (const [field, index] of this.#indexes) {
      const groups = this.#groupsFor(index, filter[field]);
      if (!groups) continue;
      const size = groups.reduce((sum, group) => sum + group.slots.size, 0);
      if (size < bestSize) [best, bestSize] = [{ field, index, groups }, size];
    }
    if (!best) return { docs: this.#docs.values(), size: this.#docs.size, group: EVERY_DOC };
    const nonEmpty = best.groups.filter((group) => group.slots.size > 0);
    if (nonEmpty.length === 0) return { docs: [], size: 0 };
    if (nonEmpty.length === 1) {
      const [{ key, slots }] = nonEmpty as [IndexGroup];
      const { field, index: { steps } } = best;
      const group = best.index.multikey
        ? { name: `${field}∋${JSON.stringify(key)}`, holds: (doc: StoredDoc) => elementKeys(doc, steps).includes(key!) }
        : { name: `${field}=${JSON.stringify(key)}`, holds: (doc: StoredDoc) => indexKey(doc, steps) === key };
      return { docs: this.#docsOf(slots), size: slots.size, group };
    }
    // Several groups may hold one document twice (`$in` with a repeated value): a Set keeps it once.
    const docs = new Set(nonEmpty.flatMap((group) => [...this.#docsOf(group.slots)]));
    return { docs, size: docs.size };
  }

  *#docsOf(slots: Iterable<number>): Generator<StoredDoc> {
    for (const slot of slots) yield this.#bySlot[slot]!;
  }

  /**
   * The index groups that hold every document meeting `condition` (with the documents the index cannot file), or
   * undefined when the index cannot narrow it: equalities and `$in` on any index; on a multikey one also `$all`
   * (the smallest group of its values: a match holds each) and an anchored literal `$regex` (the groups of the
   * keys with that prefix, found among the keys, whose number does not grow with the documents).
   */
  #groupsFor(index: FieldIndex, condition: unknown): IndexGroup[] | undefined {
    const unindexed: IndexGroup = { key: undefined, slots: index.unindexed };
    const keys = equalityKeys(condition) ?? (index.multikey ? allKeys(condition) : undefined);
    if (keys) {
      const groups = keys.map((key): IndexGroup => ({ key, slots: index.slots(key) }));
      if (!isAll(condition)) return [unindexed, ...groups.filter((group) => group.slots.size > 0)];
      const smallest = groups.reduce((best, group) => (group.slots.size < best.slots.size ? group : best));
      return smallest.slots.size > 0 ? [unindexed, smallest] : [unindexed];
    }
    const prefix = index.multikey ? literalPrefix(condition) : undefined;
    if (prefix === undefined) return undefined;
    const groups = [unindexed];
    for (const [key, slots] of index.groups()) if (typeof key === 'string' && key.startsWith(prefix)) groups.push({ key, slots });
    return groups;
  }

  /** `doc` frozen, its multikey arrays sharing what the stored document and the lookups already hold. */
  #kept(doc: StoredDoc, stored: StoredDoc | undefined): StoredDoc {
    for (const index of this.#indexes.values()) index.share(doc, stored);
    return deepFreeze(doc);
  }

  #index(doc: StoredDoc): void {
    this.#sequence(doc);
    const slot = this.#freeSlots.pop() ?? this.#bySlot.length;
    this.#slotOf.set(doc._id, slot);
    this.#bySlot[slot] = doc;
    for (const index of this.#indexes.values()) index.add(doc, slot);
  }

  #unindex(doc: StoredDoc): void {
    this.#unsequence(doc);
    const slot = this.#slotOf.get(doc._id)!;
    for (const index of this.#indexes.values()) index.remove(doc, slot);
    this.#slotOf.delete(doc._id);
    this.#bySlot[slot] = undefined;
    this.#freeSlots.push(slot);
  }

  /** `doc` replaces `stored`: the lookups change only where their values differ. */
  #reindex(stored: StoredDoc, doc: StoredDoc): void {
    this.#unsequence(stored);
    this.#sequence(doc);
    const slot = this.#slotOf.get(doc._id)!;
    this.#bySlot[slot] = doc;
    for (const index of this.#indexes.values()) index.replace(stored, doc, slot);
  }

  /** Takes `doc` into the write order, the maintained orders and the kept counts. */
  #sequence(doc: StoredDoc): void {
    const seq = (this.#writes += 1);
    this.#writeSeq.set(doc._id, seq);
    for (const { order, holds } of this.#orders.values()) if (holds(doc)) order.insert(doc, seq);
    this.#counts.added(doc);
  }

  #unsequence(doc: StoredDoc): void {
    this.#writeSeq.delete(doc._id);
    for (const { order } of this.#orders.values()) order.remove(doc._id);
    this.#counts.removed(doc);
  }
}
