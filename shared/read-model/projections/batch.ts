/**
 * Applies a batch of events to one projection in memory: loads every document the batch touches once (by id in
 * one `getStored`, by filter in one `find` over the `$or` of the batch's filters), applies the events in order, and
 * returns one write per changed document with its final state. An event reaching documents by a filter that is one
 * equality of a field finds them through the working set's index of that field (working-set.ts), so its cost does
 * not grow with the batch; other filters are evaluated against the whole working set. A document already
 * reflecting an event (its `position`, or its tombstone's, is at or past the event's) is left alone, so a replayed
 * batch changes nothing.
 * Each write expects the document as it was read (its position, or nothing stored): a batch built on a read that
 * another writer has since made stale is refused by the store instead of overwriting the newer state.
 */
import { isEventType } from '../../events/index.ts';
import { isUnreadable, type UnreadableEvent } from '../../ports/event-store.ts';
import type { Filter, StoredDoc, Tombstone, WriteOp } from '../../ports/read-store.ts';
import { compileFilter } from '../query/compile-filter.ts';
import type { Scalar } from './equality-index.ts';
import type { DocChange, PositionedEvent, PositionedRecord, Projection, Touches } from './projection.ts';
import { WorkingSet, type BatchWork, type FilterReach } from './working-set.ts';

/** Where a batch reads the documents it touches: the live read store or a rebuild generation. */
interface DocSource {
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
 * handled by none: it goes to the projection's `unknownTypes`, if any). An unreadable event of a type it handles
 * fails like an event it cannot apply, so that it parks this projection, and only those that must read it, until a
 * version that can read it is deployed.
 */
function eventFor(projection: Projection, record: PositionedRecord): PositionedEvent | undefined {
  if (projection.everyRecord) return record as PositionedEvent;
  if (!(projection.handles as ReadonlySet<string>).has(record.type)) return undefined;
  if (!isUnreadable(record)) return record;
  throw new ProjectionEventError(projection.name, record.position, record.type, new Error(`this version cannot read it: ${record.unreadable}`));
}

/** The event of a type this version does not know, when `projection` reads those (`unknownTypes`). */
function unknownFor(projection: Projection, record: PositionedRecord): UnreadableEvent | undefined {
  return projection.unknownTypes && !projection.everyRecord && isUnreadable(record) && !isEventType(record.type) ? record : undefined;
}

type Planned = {
  touches: Touches;
  /** How `touches.filter` is resolved, shared by every event of the batch with the same filter. */
  reach?: FilterReach;
} & ({ event: PositionedEvent } | { unknown: UnreadableEvent });

/** Options of one batch; none are needed to project it. */
interface BatchOptions {
  /**
   * Awaited between two events once `everyMs` (on `now`) have passed since the batch began or since the last
   * check-in: the runner checks its lease there and lets the event loop turn, so a long batch never goes longer than
   * that without either.
   */
  checkIn?: { everyMs: number; now(): number; run(): Promise<void> };
  /** Counts the work done (tests and benchmarks bound it). */
  work?: BatchWork;
}

/** One compiled matcher per distinct filter of a batch (a batch often names the same watch many times). */
class BatchFilters {
  readonly #byKey = new Map<string, { filter: Filter; reach: FilterReach }>();

  reach(filter: Filter): FilterReach {
    const key = JSON.stringify(filter);
    let known = this.#byKey.get(key);
    if (!known) {
      const equality = singleEquality(filter);
      const matches = compileFilter(filter);
      this.#byKey.set(key, (known = { filter, reach: equality ? { matches, equality } : { matches } }));
    }
    return known.reach;
  }

  /** The fields of the equality filters: the working set is indexed by them. */
  equalityPaths(): Set<string> {
    return new Set([...this.#byKey.values()].flatMap(({ reach }) => (reach.equality ? [reach.equality[0]] : [])));
  }

  /**
   * The filter matching what any of them matches, for one `find`. Equalities on one path become one `$in`
   * (MongoDB defines `$in` as that `$or`): a batch of price changes names dozens of watches, and a store
   * resolves the path once per document instead of once per watch.
   */
  combined(): Filter | undefined {
    const valuesByPath = new Map<string, Scalar[]>();
    const others: Filter[] = [];
    for (const { filter, reach: { equality } } of this.#byKey.values()) {
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

/**
 * `[path, value]` of a filter that is one equality of a field to a string, number or boolean, the path naming fields
 * (no operator, no empty step): the shape the projections emit, which the working set is indexed for.
 */
function singleEquality(filter: Filter): [string, Scalar] | undefined {
  const entries = Object.entries(filter);
  if (entries.length !== 1) return undefined;
  const [path, value] = entries[0]!;
  if (path.split('.').some((step) => step === '' || step.startsWith('$'))) return undefined;
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
    ? [path, value]
    : undefined;
}

/** The writes that bring the projection's documents from their stored state to the end of `events`. */
export async function projectBatch(
  projection: Projection, events: readonly PositionedRecord[], source: DocSource, options: BatchOptions = {},
): Promise<WriteOp[]> {
  const { checkIn } = options;
  let checkedAt = checkIn?.now() ?? 0;
  const planned: Planned[] = [];
  const ids = new Set<string>();
  const filters = new BatchFilters();
  for (const record of events) {
    const unknown = unknownFor(projection, record);
    const event = unknown ? undefined : eventFor(projection, record);
    let step: Planned;
    if (unknown) step = { unknown, touches: projection.unknownTypes!.touches(unknown) };
    else if (event) step = { event, touches: projection.touches(event) };
    else continue;
    if (step.touches.filter) step.reach = filters.reach(step.touches.filter);
    planned.push(step);
    for (const id of step.touches.ids) ids.add(id);
  }
  if (planned.length === 0) return [];

  const working = new WorkingSet(filters.equalityPaths(), options.work);
  const filter = filters.combined();
  const [byId, byFilter] = await Promise.all([
    ids.size > 0 ? source.getStored([...ids]) : Promise.resolve([]),
    filter ? source.find(filter) : Promise.resolve([]),
  ]);
  for (const id of ids) working.read.set(id, null);
  for (const doc of [...byId, ...byFilter]) working.load(doc);

  for (const step of planned) {
    if (checkIn && checkIn.now() - checkedAt >= checkIn.everyMs) {
      await checkIn.run();
      checkedAt = checkIn.now();
    }
    const { touches, reach } = step;
    const { position, type } = 'event' in step ? step.event : step.unknown;
    let changes: DocChange<StoredDoc>[];
    try {
      const docs = working.view(touches.ids, reach);
      changes = 'event' in step ? projection.apply(step.event, docs) : projection.unknownTypes!.apply(step.unknown, docs);
    } catch (error) {
      throw new ProjectionEventError(projection.name, position, type, error);
    }
    for (const change of changes) working.record(change, position);
  }
  const writes = working.writes();
  const rank = projection.writeRank?.bind(projection);
  if (!rank) return writes;
  const idOf = (op: WriteOp) => ('put' in op ? op.put._id : op.delete._id);
  return writes.map((op) => ({ op, rank: rank(idOf(op)) })).sort((a, b) => a.rank - b.rank).map(({ op }) => op);
}
