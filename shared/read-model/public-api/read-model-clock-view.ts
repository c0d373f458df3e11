/**
 * What the read-model clock gives the read API (read-model-clock.ts, which polls the store for it): each set of
 * projections' stamp, the snapshot answers are read through, why an answer cannot be given now, and how fresh each
 * projection is, as status, readiness and metrics report it (docs/api.md, "Honest answers").
 */
import type { ReadView as StoreView } from '../../ports/read-store.ts';
import type { ProjectionState } from '../projections/projection-states.ts';
import type { HeardMove } from '../../ports/read-model-changes.ts';
import type { ReadStamp } from './served-state.ts';

/** The current stamp of one set of projections, as of the latest snapshot; the same object until one of them moves. */
export type ReadView = () => ReadStamp;

export interface ParkedProjection {
  name: string;
  /** Position of the event it stopped on. */
  position: number;
  reason: string;
}

/** One projection as status, readiness and metrics report it (docs/api.md, "Honest answers"). */
export interface ProjectionFreshness {
  name: string;
  position: number;
  /** Its live generation has a checkpoint whose owner confirmed a head at least once. */
  built: boolean;
  /** Seen confirmed within the bound (`maxLagMs`). */
  fresh: boolean;
  /** Seconds since this process saw its owner confirm having applied the head; null when it has seen none happen. */
  lag_seconds: number | null;
}

/** Why an answer cannot be given now. */
export type Refusal = 'unbuilt' | 'stale';

/** One snapshot of the store: what answers are read through, and the stamps it gives them. */
export interface Reading {
  readonly view: StoreView;
  stamp(projections: readonly string[]): ReadStamp;
  /** Why an answer made of `projections` may not be given from this reading, or undefined (as `ReadModelClock.refusal`). */
  refusal(projections: readonly string[], fresh: boolean): Refusal | undefined;
  /** How old the data of `projections` is in this reading, in whole seconds rounded up; undefined when unknown. */
  dataAge(projections: readonly string[]): number | undefined;
}

/** What the clock reads each time: the store's snapshot and the projection states in its control documents. */
export interface StoreReading {
  view: StoreView;
  states: ProjectionState[];
}

/** What an operation may ask of the clock: the position it reports. */
export interface ReadModelPosition {
  /** Lowest position served over every projection: the last event reflected in everything served; 0 before any. */
  current(): number;
  /** When a projection last stored its state (ISO 8601), `null` before any did. */
  readonly updatedAt: string | null;
  /** Every projection with a live checkpoint, with its freshness now. */
  projections(): ProjectionFreshness[];
}

export interface ReadModelClock extends ReadModelPosition {
  /**
   * The stamp of the projections named (each projection is named after the read collection it writes) in the latest
   * snapshot; of none, the stamp of what is served over all (its position is `current()`).
   */
  view(projections: readonly string[]): ReadView;
  /**
   * The snapshot to read an answer through: the latest if it is young enough for its reads to end within a
   * snapshot's life, else a new one (`renew`: always a new one). Rejects with `ReadStoreUnavailableError` when the
   * store cannot be read.
   */
  reading(renew?: boolean): Promise<Reading>;
  /**
   * The next snapshot read, whoever reads it (a refresh on a projector's word, the background poll, a request):
   * what a request waiting for its `X-Min-Position` waits on. One is read for it once `maxMs` or the clock's own
   * wait (`waitingPollMs`), whichever is shorter, passed with none read.
   */
  nextReading(maxMs: number): Promise<Reading>;
  /**
   * Why an answer made of `projections` may not be given now, or undefined. `fresh`: it needs them fresh, each seen
   * confirmed within `freshAnswerMaxLagMs` (the verification's own bound) and none parked (`stale`: confirmed no
   * more); otherwise built is enough.
   */
  refusal(projections: readonly string[], fresh: boolean): Refusal | undefined;
  /**
   * How old the data of `projections` served now is (see `Reading.dataAge`): for an answer kept while they stand
   * where they stood when it was read, which any confirmation seen since covers too.
   */
  dataAge(projections: readonly string[]): number | undefined;
  /**
   * Tells the clock that an answer of `projections` was given from a document at `position`, past the stamp of its
   * reading (its projector writes a batch's documents before their checkpoint): what this process served of them then
   * stands at `position`, though no checkpoint says so yet.
   */
  answeredAhead(projections: readonly string[], position: number): void;
  /**
   * The highest position an answer of `projections` was given from ahead of its stamp (`answeredAhead`), 0 if none: a
   * kept answer stamped below it is older than what this process served since, and is not given again.
   */
  aheadOf(projections: readonly string[]): number;
  /**
   * Whether one of `projections` (of none: any) was parked as last read: its projector stopped where it cannot vouch
   * for the history, so its checkpoint's position does not say which events it reflects.
   */
  parkedAmong(projections: readonly string[]): boolean;
}

export interface PolledReadModelClock extends ReadModelClock {
  /** Projections parked on an event they cannot apply, as last read. */
  readonly parked: readonly ParkedProjection[];
  /** The last poll reached the read store. */
  readonly reachable: boolean;
  /**
   * Whether confirmations are bounded by freshness tickets now (a ticket taken lately); undefined without tickets
   * (ports/freshness-tickets.ts).
   */
  ticketsCurrent(): boolean | undefined;
  /**
   * Reads a new snapshot now, begun after this call (the timer does it every `intervalMs`); none when `moved` names
   * a checkpoint this process serves already, at or past its position (a projector's word, heard after a read that
   * saw it: a price change moves two read models, whose words come a few milliseconds apart).
   */
  refresh(moved?: HeardMove): Promise<void>;
  stop(): void;
}
