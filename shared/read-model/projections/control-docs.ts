/**
 * The control documents of the `checkpoints` collection, each changed only by compare-and-set (one document, so
 * atomic on every engine):
 * - the generation pointer (`generations`): the live generation of each projected collection, the highest
 *   generation a rebuild reserved, the reservations of the rebuilds at work, and each projection's latest lease token;
 * - a lease per projection (`lease:NAME`): its owner, its fencing token (raised by every new owner), its renewals and
 *   length (others judge its expiry by their own clocks, see lease-watch.ts);
 * - a checkpoint per projection and generation (`checkpoint:NAME@G`): the position applied (and the id of the event
 *   there), the token of the owner that may move it, and whether the projection is parked on an event it cannot apply.
 */
import type { FreshnessTicket } from '../../ports/freshness-tickets.ts';
import type { ControlDoc, ProjectedCollection, ReadStore } from '../../ports/read-store.ts';
import { GENERATIONS_ID, liveGenerationOf } from '../../ports/read-store.ts';

export interface GenerationsDoc extends ControlDoc {
  /** Raised by every change: the compare-and-set key. */
  version: number;
  live: Record<string, number>;
  /** The highest generation reserved by a rebuild (live or being built). */
  reserved: number;
  /**
   * The generations running rebuilds build, each with the count of its renewals: held while the count keeps moving
   * (generations.ts judges it by the observer's own clock, never by a time written here).
   */
  reservations?: Record<string, number>;
  /**
   * The token of each projection's latest lease owner, recorded by every new owner before it writes anything: a
   * switch is made only while its maker's tokens are still these, in the same compare-and-set.
   */
  tokens?: Record<string, number>;
}

export interface LeaseDoc extends ControlDoc {
  projection: string;
  owner: string;
  token: number;
  /** Its owner's wall clock plus the ttl, for people to read: no process compares it with its own clock. 0 once released. */
  expires_at: number;
  /** Raised by every write of its owner (a renewal, the release): what tells others it is alive (lease-watch.ts). */
  renewals?: number;
  /** How long it lasts without a renewal (ms), as its owner renews it. */
  ttl_ms?: number;
  /**
   * Its owner keeps it between runs and runs the projection on its own signals (the event store's feed and its
   * periodic one), so a job that finds it held ends instead of waiting for it (see projector/ownership.ts).
   */
  standing?: boolean;
}

export interface CheckpointState extends ControlDoc {
  projection: string;
  generation: number;
  position: number;
  /** The token of the lease under which it may move; a stale owner's write is refused. */
  token: number;
  status: 'running' | 'parked';
  parked: { position: number; reason: string } | null;
  updated_at: string | null;
  /**
   * The last time its owner read the event store's head and had applied every event up to it: what tells every
   * process whether this read model is built (confirmed once) and fresh (confirmed lately). Absent before the first.
   */
  confirmed?: HeadConfirmation | null;
  /**
   * The event at `position`, the last one applied: what a projector finds again in the history before it reads on
   * (history-check.ts). Absent at position 0 and from a checkpoint an earlier release wrote: not checked.
   */
  applied?: AppliedEvent;
}

/** An event a checkpoint applied last, as the history held it. */
export interface AppliedEvent {
  id: string;
  /**
   * The position of the event before it (0 at the start): what a read after which returns it first. Not `position -
   * 1`: EventStoreDB positions are log offsets (shared/ports/event-store.ts), and its server refuses a read that
   * starts inside a record.
   */
  after: number;
}

/** A head of the event store a projection had reached, and when it was read (the owner's wall clock, ISO 8601). */
export interface HeadConfirmation {
  head: number;
  at: string;
  /**
   * How long before the checkpoint holding it was written its owner read the head, in milliseconds of the owner's own
   * monotonic clock (a batch applied, a pause): a reader counts the data's age from then, never comparing clocks.
   * Absent from a confirmation an earlier release wrote.
   */
  age_ms?: number;
  /**
   * The latest freshness ticket its owner had read before it read the head (ports/freshness-tickets.ts), which bounds
   * the data's age whatever the write's delay. Absent from an owner without tickets, or whose tickets cannot be read
   * now (Redis away), or of an earlier release: its age is then judged by `age_ms` alone.
   */
  ticket?: FreshnessTicket;
}

/** A head read by a projection's owner, kept until the checkpoint confirming it is written. */
export interface HeadRead {
  head: number;
  /** When it was read: the owner's wall clock (a marker for readers) and its monotonic clock (for `age_ms`). */
  wallMs: number;
  monotonicMs: number;
  /** The latest freshness ticket read before (see `HeadConfirmation.ticket`); absent without a current one. */
  ticket?: FreshnessTicket;
}

/** The clocks a head's read is noted on; `ticket`: the latest freshness ticket read lately, when the owner has one. */
export interface HeadReadClock {
  wall(): number;
  monotonic(): number;
  ticket?: () => FreshnessTicket | undefined;
}

/**
 * When a head is read, on both of its reader's clocks and by the latest ticket it read: a `HeadRead` but for the
 * head, which the read answers. Taken before the read is sent.
 */
export const readMoment = (clock: HeadReadClock): Omit<HeadRead, 'head'> => {
  const ticket = clock.ticket?.();
  return { wallMs: clock.wall(), monotonicMs: clock.monotonic(), ...(ticket ? { ticket } : {}) };
};

/** The confirmation of `read` in a checkpoint written at `nowMonotonicMs` (the same owner's monotonic clock). */
export const headConfirmation = (read: HeadRead, nowMonotonicMs: number): HeadConfirmation => ({
  head: read.head, at: new Date(read.wallMs).toISOString(), age_ms: Math.max(0, Math.round(nowMonotonicMs - read.monotonicMs)),
  ...(read.ticket ? { ticket: read.ticket } : {}),
});

/** The lease was taken by a newer owner (or a rebuild switched the generation): this worker must stop writing. */
export class LeaseLostError extends Error {
  constructor(readonly projection: string, detail: string) {
    super(`lease of projection ${projection} lost: ${detail}`);
    this.name = 'LeaseLostError';
  }
}

export const leaseId = (projection: string): string => `lease:${projection}`;
/** What the `_id` of every checkpoint of a projection starts with. */
export const checkpointPrefix = (projection: string): string => `checkpoint:${projection}@`;
export const checkpointId = (projection: string, generation: number): string => `${checkpointPrefix(projection)}${generation}`;

export function newCheckpoint(projection: string, generation: number, token: number, position = 0): CheckpointState {
  return { _id: checkpointId(projection, generation), projection, generation, position, token, status: 'running', parked: null, updated_at: null };
}

/** The control documents by `_id`, read at once. */
export async function readControlDocs(store: ReadStore): Promise<Map<string, ControlDoc>> {
  return new Map((await store.readControl()).map((doc) => [doc._id, doc]));
}

export function generationsOf(docs: Map<string, ControlDoc>): GenerationsDoc | undefined {
  return docs.get(GENERATIONS_ID) as GenerationsDoc | undefined;
}

/** The live generation of a projection's collection, and the projection's checkpoint there (none before it ran). */
export function liveCheckpointOf(
  docs: Map<string, ControlDoc>, projection: { name: string; collection: ProjectedCollection },
): { generation: number; checkpoint: CheckpointState | undefined } {
  const generation = liveGenerationOf(generationsOf(docs), projection.collection);
  return { generation, checkpoint: docs.get(checkpointId(projection.name, generation)) as CheckpointState | undefined };
}

/** The checkpoint of a projection in one generation, read now. */
export async function readCheckpoint(store: ReadStore, projection: string, generation: number): Promise<CheckpointState | undefined> {
  return (await readControlDocs(store)).get(checkpointId(projection, generation)) as CheckpointState | undefined;
}
