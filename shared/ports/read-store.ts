/**
 * The read store port: MongoDB at scale, an in-memory store queried with mingo by default. Both evaluate the very
 * same MongoDB filter and sort documents, so the read API builds one query and either engine answers it alike.
 * The contract suite in test/contract proves the two behave the same.
 *
 * Projected collections live in generations (`watches` generation 3, say): readers follow the generation pointer
 * (a control document) to the live one, so a rebuild switches every reader to its new generation in one step.
 * Control documents (the pointer, leases, checkpoints; see shared/read-model/projections/control.ts) live in `checkpoints`,
 * which has no generations, and change only by compare-and-set.
 */
import type { ReadCollection } from '../read-model/documents/documents.ts';

/** A MongoDB query filter. Built by this service's code only; never taken from a request as it is. */
export type Filter = Record<string, unknown>;
/** A MongoDB sort document, e.g. `{ sort_name: 1, reference: 1 }`. */
export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
}

export interface StoredDoc {
  _id: string;
  position: number;
}

/** What a delete leaves: readers never see it, but an older write cannot pass it. */
export interface Tombstone extends StoredDoc {
  _deleted: true;
}

/** A collection of projected documents, in generations. */
export type ProjectedCollection = Exclude<ReadCollection, 'checkpoints'>;

/**
 * One write of a bulk. Without `expected` it follows the position rule: a `put` replaces (or inserts) the whole
 * document, and a `delete` replaces it with a tombstone, unless the stored document or tombstone already reflects
 * the same or a later position, so a replayed or duplicated write changes nothing (it is skipped, not refused).
 *
 * With `expected` it is a compare-and-set on what the writer read: the stored document or tombstone must be at
 * exactly that position (`null`: nothing stored under that id), or that write does not land and the bulk fails
 * with a `WriteConflictError` (the writes before it stay applied; later ones may land too, each only on the
 * position it expected). A writer whose read went stale (another one wrote since) thus never overwrites a newer
 * state with one built on an older; it reads again.
 */
export type WriteOp<D extends StoredDoc = StoredDoc> =
  | { put: D; expected?: number | null }
  | { delete: { _id: string; position: number }; expected?: number | null };

export interface WriteOptions {
  /**
   * The documents are handed over: the writer must not change them afterwards (the in-memory store keeps them
   * frozen in place rather than copying them; an attempt to change one throws). For a rebuild's bulk writes.
   */
  handOver?: boolean;
  /**
   * The lease token the writer holds: the bulk is refused (`FencedWriteError`) once a newer token of the projection
   * is recorded in the generation pointer (shared/read-model/projections/generations.ts, `recordLeaseToken`), so a preempted or
   * paused owner adds nothing after a newer one took over; and, with its `checkpoint`, once that control document
   * is not at the position the owner last stored (the read store put back to an older copy under it).
   */
  fence?: WriteFence;
}

/** A projection's lease token, which a write is conditioned on, and the checkpoint its owner last stored. */
export interface WriteFence {
  projection: string;
  token: number;
  checkpoint?: { id: string; position: number };
}

/** The control documents `checkFence` reads: the pointer, and the fence's checkpoint if it names one. */
export function fenceIds(fence: WriteFence | undefined): string[] {
  return fence?.checkpoint ? [GENERATIONS_ID, fence.checkpoint.id] : [GENERATIONS_ID];
}

/**
 * Throws `FencedWriteError` when the generation pointer records a newer lease token of the fence's projection, or
 * the fence's checkpoint is not at its position (`control`: the documents of `fenceIds`, by id).
 */
export function checkFence(control: (id: string) => ControlDoc | undefined | null, fence: WriteFence | undefined): void {
  if (!fence) return;
  const newer = (control(GENERATIONS_ID)?.['tokens'] as Record<string, number> | undefined)?.[fence.projection];
  if (typeof newer === 'number' && newer > fence.token) throw new FencedWriteError(fence, newer);
  if (!fence.checkpoint) return;
  const position = control(fence.checkpoint.id)?.['position'];
  if (position !== fence.checkpoint.position) {
    throw new FencedWriteError(fence, null, `its checkpoint is at ${String(position)}, not at ${fence.checkpoint.position} where it stored it`);
  }
}

/** One generation of one projected collection, as a projection writer sees it. */
export interface GenerationStore {
  readonly collection: ProjectedCollection;
  readonly generation: number;
  /** Documents and tombstones by id, in the order of `ids`, leaving out ids with neither. */
  getStored(ids: string[]): Promise<(StoredDoc | Tombstone)[]>;
  /** As `ReadStore.find`, in this generation (tombstones are never found). */
  find<D extends StoredDoc>(filter: Filter, options?: FindOptions): Promise<D[]>;
  /**
   * Applies the writes in order; refused (`StaleGenerationError`) once a newer generation is live, and
   * (`FencedWriteError`) under a `fence` whose token was superseded.
   */
  write(ops: WriteOp[], options?: WriteOptions): Promise<void>;
}

/** A control document of the `checkpoints` collection. */
export interface ControlDoc {
  _id: string;
  [field: string]: unknown;
}

/** The reads of the read API: live documents only (never tombstones). */
export interface ReadView {
  find<D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions): Promise<D[]>;
  count(collection: ReadCollection, filter: Filter): Promise<number>;
  get<D extends StoredDoc>(collection: ReadCollection, id: string): Promise<D | null>;
  /** The documents stored under `ids`, in the order of `ids`, leaving out those not stored. */
  getMany<D extends StoredDoc>(collection: ReadCollection, ids: string[]): Promise<D[]>;
}

/**
 * One read of the control documents, and the reads of the live generations that read's pointer names: an answer made
 * of several reads never mixes generations, and what it says of the projections (their checkpoints) is from the very
 * read its data follows, so a stamp taken from `control` is never ahead of the data read through it.
 */
export interface ReadSnapshot extends ReadView {
  /** Every control document, as read at once with the pointer this snapshot reads through. */
  readonly control: readonly ControlDoc[];
}

export interface ReadStore extends ReadView {
  /**
   * A snapshot of the store now (see `ReadSnapshot`), for all the reads of one answer. Its reads reject with
   * `SnapshotExpiredError` once its generations may have been dropped (see `SNAPSHOT_TTL_MS`): read again from a
   * new snapshot. The store's own reads each read the live generation of their moment, however long.
   */
  snapshot(): Promise<ReadSnapshot>;
  /** Applies the writes in order as one bulk write, to the live generation. */
  write(collection: ProjectedCollection, ops: WriteOp[]): Promise<void>;
  /** A generation of a collection, live or not (a rebuild's next one); created on first write. */
  generation(collection: ProjectedCollection, generation: number): GenerationStore;
  /** Empties a generation and prepares it (indexes) for a rebuild. Refused for the live one. */
  resetGeneration(collection: ProjectedCollection, generation: number): Promise<void>;
  /** Drops a generation's documents. Refused for the live one. */
  dropGeneration(collection: ProjectedCollection, generation: number): Promise<void>;
  /** The generations of a collection the store holds (live, being built, or left behind), in ascending order. */
  storedGenerations(collection: ProjectedCollection): Promise<number[]>;
  /** Every control document, in one read (there are a few per projection). */
  readControl(): Promise<ControlDoc[]>;
  /**
   * Replaces control document `doc._id` with `doc` if the stored one matches `condition` (a filter); inserts it
   * when none is stored and `insertIfAbsent`. True when it was written. One document, so atomic on every engine.
   * `onWritten` is called as soon as readers can see `doc`, which may be before the store has made sure the write
   * stands (on MongoDB, the check after a version's insert): a hint for telling readers, as the projectors' word is,
   * never a promise that this call answers true.
   */
  setControl(doc: ControlDoc, condition: Filter, insertIfAbsent: boolean, onWritten?: () => void): Promise<boolean>;
  /** Removes control document `id` (the checkpoint of a replaced generation, say). */
  removeControl(id: string): Promise<void>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The store could not be reached or did not answer (a network partition, an engine down): nothing is known of what
 * it holds now, so an answer that needs it is refused (503), never guessed. Adapters turn their engine's errors
 * into this one.
 */
export class ReadStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the read store cannot be reached', { cause });
    this.name = 'ReadStoreUnavailableError';
  }
}

/** A compare-and-set write found another state than the writer read: re-read and try again. */
export class WriteConflictError extends Error {
  constructor(readonly id: string, readonly detail: string) {
    super(`write conflict on ${id}: ${detail}`);
    this.name = 'WriteConflictError';
  }
}

/** A write to a generation older than the live one (a rebuild switched readers away from it). */
export class StaleGenerationError extends Error {
  constructor(readonly collection: string, readonly generation: number, readonly live: number) {
    super(`generation ${generation} of ${collection} is no longer written: generation ${live} is live`);
    this.name = 'StaleGenerationError';
  }
}

/** A write under a lease token that a newer owner's token superseded (see `WriteOptions.fence`). */
export class FencedWriteError extends Error {
  /** `newer`: the token taken since, or null when the checkpoint moved (`reason`). */
  constructor(readonly fence: WriteFence, readonly newer: number | null, reason = `token ${newer} was taken since`) {
    super(`write of projection ${fence.projection} under token ${fence.token} refused: ${reason}`);
    this.name = 'FencedWriteError';
  }
}

/**
 * A snapshot outlived what its generations are guaranteed: a switched-away generation is dropped
 * `GENERATION_DROP_DELAY_MS` after the switch, so a snapshot's reads must end within `SNAPSHOT_TTL_MS` of the
 * pointer read it was resolved from. The request is answered again from a new snapshot.
 */
export class SnapshotExpiredError extends Error {
  constructor(readonly ageMs: number) {
    super(`read snapshot expired after ${Math.round(ageMs)} ms: its generation may have been dropped`);
    this.name = 'SnapshotExpiredError';
  }
}

/** How long a snapshot's reads are guaranteed their generations, counted from the start of its pointer read. */
export const SNAPSHOT_TTL_MS = 500;
/**
 * How long after a switch the replaced generation is kept: twice a snapshot's life, so a reader that read the
 * pointer just before the switch has ended, or given up on, its reads well before the drop.
 */
export const GENERATION_DROP_DELAY_MS = 2 * SNAPSHOT_TTL_MS;

/** `_id` of the control document that maps each projected collection to its live generation. */
export const GENERATIONS_ID = 'generations';
/** The generation of a collection nobody rebuilt yet. */
export const FIRST_GENERATION = 1;

/** The live generation of each collection, as the pointer document says (absent: the first). */
export function liveGenerationOf(pointer: ControlDoc | undefined | null, collection: ProjectedCollection): number {
  const live = (pointer?.['live'] as Record<string, number> | undefined)?.[collection];
  return typeof live === 'number' ? live : FIRST_GENERATION;
}

/** Physical name of one generation of a collection. */
export const generationName = (collection: ProjectedCollection, generation: number): string => `${collection}__g${generation}`;

/** The generation a physical name holds of `collection` (see `generationName`), if it is one of its. */
function generationOfName(collection: ProjectedCollection, name: string): number | undefined {
  const prefix = `${collection}__g`;
  const number = name.slice(prefix.length);
  return name.startsWith(prefix) && /^[0-9]+$/.test(number) ? Number(number) : undefined;
}

/** The generations among physical names, ascending. */
export const generationsAmong = (collection: ProjectedCollection, names: Iterable<string>): number[] =>
  [...names].flatMap((name) => generationOfName(collection, name) ?? []).sort((a, b) => a - b);
