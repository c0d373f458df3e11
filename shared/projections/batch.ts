/**
 * Applies a batch of events to one projection in memory: loads every document the batch touches once (by id in
 * one `getStored`, by filter in one `find` over the `$or` of the batch's filters), applies the events in order, and
 * returns one write per changed document with its final state. A document already reflecting an event (its
 * `position`, or its tombstone's, is at or past the event's) is left alone, so a replayed batch changes nothing.
 * Each write expects the document as it was read (its position, or nothing stored): a batch built on a read that
 * another writer has since made stale is refused by the store instead of overwriting the newer state.
 */
import { isUnreadable } from '../ports/event-store.ts';
import type { Filter, StoredDoc, Tombstone, WriteOp } from '../ports/read-store.ts';
import { compileFilter, type DocPredicate } from '../query/compile-filter.ts';
import type { DocChange, PositionedEvent, PositionedRecord, Projection, Touches } from './projection.ts';

/** Where a batch reads the documents it touches: the live read store or a rebuild generation. */
export interface DocSource {
  /** Documents and tombstones by id. */
  getStored(ids: string[]): Promise<(StoredDoc | Tombstone)[]>;
  find<D extends StoredDoc>(filter: Filter): Promise<D[]>;
}

/** An event a projection could not apply; the message names the projection, the position and the type. */
export class ProjectionEventError extends Error {
  constructor(readonly projection: string, readonly position: number, readonly eventType: string, override readonly cause: unknown) {
    super(`projection ${projection} cannot apply ${eventType} at position ${position}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'ProjectionEventError';
  }
}

/**
 * The event as `projection` reads it; undefined for a type it does not handle (a type this version does not know is
 * handled by none). An unreadable event of a type it handles fails like an event it cannot apply, so that it parks
 * this projection, and only those that must read it, until a version that can read it is deployed.
 */
function eventFor(projection: Projection, record: PositionedRecord): PositionedEvent | undefined {
  if (!(projection.handles as ReadonlySet<string>).has(record.type)) return undefined;
  if (!isUnreadable(record)) return record;
  throw new ProjectionEventError(projection.name, record.position, record.type, new Error(`this version cannot read it: ${record.unreadable}`));
}

interface Planned {
  event: PositionedEvent;
  touches: Touches;
  /** The compiled `touches.filter`, shared by every event of the batch with the same filter. */
  matches?: DocPredicate;
}

/**
 * Every document of the batch by id: `null` once deleted; `deletedAt` keeps the deleting event's position (or the
 * stored tombstone's); `read` the position each id had when read (`null`: nothing stored).
 */
class WorkingSet {
  readonly docs = new Map<string, StoredDoc | null>();
  readonly deletedAt = new Map<string, number>();
  readonly read = new Map<string, number | null>();
  readonly changed = new Set<string>();

  load(doc: StoredDoc | Tombstone): void {
    this.read.set(doc._id, doc.position);
    if ('_deleted' in doc) {
      this.docs.set(doc._id, null);
      this.deletedAt.set(doc._id, doc.position);
    } else this.docs.set(doc._id, doc);
  }

  /** The existing documents an event touches, as they stand now. */
  view({ touches, matches }: Planned): Map<string, StoredDoc> {
    const view = new Map<string, StoredDoc>();
    for (const id of touches.ids) {
      const doc = this.docs.get(id);
      if (doc) view.set(id, doc);
    }
    if (matches) {
      for (const [id, doc] of this.docs) if (doc && matches(doc)) view.set(id, doc);
    }
    return view;
  }

  record(change: DocChange<StoredDoc>, position: number): void {
    const id = 'put' in change ? change.put._id : change.delete;
    const current = this.docs.get(id);
    const reflected = current ? current.position : this.deletedAt.get(id);
    if (reflected !== undefined && reflected >= position) return;
    if ('put' in change) {
      this.docs.set(id, change.put);
    } else {
      if (current === undefined || current === null) return;
      this.docs.set(id, null);
      this.deletedAt.set(id, position);
    }
    this.changed.add(id);
  }

  /** A document written but never read (no projection does that today) follows the position rule instead. */
  writes(): WriteOp[] {
    return [...this.changed].map((id): WriteOp => {
      const doc = this.docs.get(id);
      const op: WriteOp = doc ? { put: doc } : { delete: { _id: id, position: this.deletedAt.get(id) ?? 0 } };
      return this.read.has(id) ? { ...op, expected: this.read.get(id) ?? null } : op;
    });
  }
}

/** One compiled matcher per distinct filter of a batch (a batch often names the same watch many times). */
class BatchFilters {
  readonly #byKey = new Map<string, { filter: Filter; matches: DocPredicate }>();

  matcher(filter: Filter): DocPredicate {
    const key = JSON.stringify(filter);
    let known = this.#byKey.get(key);
    if (!known) this.#byKey.set(key, (known = { filter, matches: compileFilter(filter) }));
    return known.matches;
  }

  /**
   * The filter matching what any of them matches, for one `find`. Equalities on one path become one `$in`
   * (MongoDB defines `$in` as that `$or`): a batch of price changes names dozens of watches, and a store
   * resolves the path once per document instead of once per watch.
   */
  combined(): Filter | undefined {
    const valuesByPath = new Map<string, Scalar[]>();
    const others: Filter[] = [];
    for (const { filter } of this.#byKey.values()) {
      const equality = singleEquality(filter);
      if (!equality) {
        others.push(filter);
        continue;
      }
      const [path, value] = equality;
      const values = valuesByPath.get(path);
      if (values) values.push(value);
      else valuesByPath.set(path, [value]);
    }
    const clauses = [
      ...[...valuesByPath].map(([path, values]): Filter => ({ [path]: values.length === 1 ? values[0] : { $in: values } })),
      ...others,
    ];
    if (clauses.length <= 1) return clauses[0];
    return { $or: clauses };
  }
}

type Scalar = string | number | boolean;

/** `[path, value]` of a filter that is one equality of a field to a string, number or boolean. */
function singleEquality(filter: Filter): [string, Scalar] | undefined {
  const entries = Object.entries(filter);
  if (entries.length !== 1) return undefined;
  const [path, value] = entries[0]!;
  if (path.startsWith('$')) return undefined;
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
    ? [path, value]
    : undefined;
}

/** The writes that bring the projection's documents from their stored state to the end of `events`. */
export async function projectBatch(projection: Projection, events: readonly PositionedRecord[], source: DocSource): Promise<WriteOp[]> {
  const planned: Planned[] = [];
  const ids = new Set<string>();
  const filters = new BatchFilters();
  for (const record of events) {
    const event = eventFor(projection, record);
    if (!event) continue;
    const touches = projection.touches(event);
    planned.push(touches.filter ? { event, touches, matches: filters.matcher(touches.filter) } : { event, touches });
    for (const id of touches.ids) ids.add(id);
  }
  if (planned.length === 0) return [];

  const working = new WorkingSet();
  const filter = filters.combined();
  const [byId, byFilter] = await Promise.all([
    ids.size > 0 ? source.getStored([...ids]) : Promise.resolve([]),
    filter ? source.find(filter) : Promise.resolve([]),
  ]);
  for (const id of ids) working.read.set(id, null);
  for (const doc of [...byId, ...byFilter]) working.load(doc);

  for (const plan of planned) {
    const { event } = plan;
    let changes: DocChange<StoredDoc>[];
    try {
      changes = projection.apply(event, working.view(plan));
    } catch (error) {
      throw new ProjectionEventError(projection.name, event.position, event.type, error);
    }
    for (const change of changes) working.record(change, event.position);
  }
  return working.writes();
}
