/**
 * Which projections this worker owns (ARCHITECTURE.md, "One writer, fenced"): it takes a projection's lease for a
 * run (shared/read-model/projections/lease.ts), keeps the lease of a run that reached the head (a standing lease, renewed in
 * the background) and runs that projection itself on every signal it gets: taking a lease costs a dozen round trips
 * to the store, which at scale were most of the time from an append to the read models (issue 29). A standing lease
 * that cannot be renewed is dropped; one whose worker died or froze expires, and the next job takes it, or this
 * worker's own poll of the leases (lease-poll.ts) while no job comes. It also remembers, for a moment, the
 * projections another live worker keeps standing, whose signals need no job from here.
 */
import type { Logger } from '../shared/logging/logger.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import { LeaseLostError, ProjectionLease, type LeaseClock } from '../shared/read-model/projections/lease.ts';
import { LeaseWatch } from '../shared/read-model/projections/lease-watch.ts';
import type { Projection } from '../shared/read-model/projections/projection.ts';
import { leasePoll, type LeasePoll } from './lease-poll.ts';
import type { ProgressBoard } from './progress-board.ts';
import type { ProjectorCounters } from './projector.ts';
import type { RunLanes } from './run-lanes.ts';

/**
 * How long a worker that found another's standing lease trusts it without looking again: a stopping owner releases
 * its lease, and the others' signals must find it free within about this long.
 */
const STANDING_RECHECK_MS = 1_000;

interface OwnershipOptions {
  readStore: ReadStore;
  logger: Logger;
  board: ProgressBoard;
  counters: ProjectorCounters;
  lanes: RunLanes;
  /** The projections this worker runs. */
  names: readonly string[];
  /** This worker's lease owner id. */
  owner: string;
  ttlMs: number;
  clock: LeaseClock;
  /** Period of the lease poll, at most a quarter lease. */
  pollIntervalMs: number;
  /** Runs a projection in this process, taking its lease (at most one run asked for at a time). */
  takeOver: (name: string) => void;
}

export class Ownership {
  readonly #options: OwnershipOptions;
  readonly #leaseOptions: { ttlMs: number; clock: LeaseClock; watch: LeaseWatch };
  /** The leases this worker keeps between runs, by projection. */
  readonly #standing = new Map<string, ProjectionLease>();
  /**
   * Until when (monotonic ms) this worker counts on another's standing lease on a projection, as seen by a job: its
   * expiry by this worker's watch, and at most STANDING_RECHECK_MS. Until then its signals queue no job for that
   * projection, since that worker hears the same appends: each such job cost two reads of the control documents,
   * for every projection on every append (issue 29). A job queued by another worker (one that lost its standing lease
   * to a rebuild, say) still runs here.
   */
  readonly #standingElsewhere = new Map<string, number>();
  readonly #leases: LeasePoll;
  #renewals: NodeJS.Timeout | undefined;
  #polls: NodeJS.Timeout | undefined;

  constructor(options: OwnershipOptions) {
    this.#options = options;
    const { readStore, board, names, ttlMs, clock, lanes, takeOver } = options;
    this.#leaseOptions = { ttlMs, clock, watch: new LeaseWatch() };
    this.#leases = leasePoll({
      readStore, board, watch: this.#leaseOptions.watch, names, ttlMs, monotonic: () => clock.monotonic(),
      holds: (name) => this.#standing.has(name) || lanes.busy(name), takeOver,
      // An operator's trace of a takeover: health names them until one is owned again (projector-health.ts).
      onOwnerless: (projections) => options.logger.info({ projections }, 'no live owner seen for a whole lease: unhealthy until they are taken over'),
    });
  }

  /** The lease this worker keeps standing on `name`, if it does. */
  standingLease(name: string): ProjectionLease | undefined {
    return this.#standing.get(name);
  }

  /** Whether this worker keeps the lease of `name` standing. */
  keeps(name: string): boolean {
    return this.#standing.has(name);
  }

  /** The projections whose lease this worker keeps standing. */
  kept(): IterableIterator<string> {
    return this.#standing.keys();
  }

  /**
   * Takes the lease of `projection` for a run; null while another owner holds it. `standing`: the lease says its
   * owner keeps it between runs (only a started worker does, as it alone gets the signals a standing owner answers).
   */
  take(projection: Projection, standing: boolean): Promise<ProjectionLease | null> {
    return ProjectionLease.acquire(this.#options.readStore, projection, this.#options.owner, { ...this.#leaseOptions, standing });
  }

  /** Keeps the lease of a run that reached the head, for the next runs of its projection here. */
  keep(name: string, lease: ProjectionLease): void {
    this.#standing.set(name, lease);
  }

  /** Releases a lease this worker will not keep (its run failed, parked or stopped). */
  async giveBack(name: string, lease: ProjectionLease): Promise<void> {
    if (this.#standing.get(name) === lease) this.#standing.delete(name);
    const released = await lease.release().catch((error: unknown) => {
      this.#options.logger.warn({ err: error, projection: name }, 'could not release a lease; it expires by itself');
      return true;
    });
    if (!released) {
      // Fenced before its release (paused past its lease): nothing it wrote after was taken. Counted where the run
      // ended on the lost lease, if it did; a run that ended first only finds out here.
      this.#options.logger.info({ projection: name }, 'projection lease lost before its release: the new owner carries on');
    }
  }

  /** How long the lease of `name` stands with another live worker as this worker's watch sees it; null if it does not. */
  standingFor(name: string): Promise<number | null> {
    return ProjectionLease.standingFor(this.#options.readStore, name, this.#leaseOptions);
  }

  /** Records that another worker keeps `name` standing for `forMs` more, as a job just found. */
  standingElsewhere(name: string, forMs: number): void {
    this.#standingElsewhere.set(name, this.#options.clock.monotonic() + Math.min(forMs, STANDING_RECHECK_MS));
  }

  /** Whether another worker's standing lease on `name` was seen lately, and is not known to have expired. */
  isStandingElsewhere(name: string): boolean {
    const until = this.#standingElsewhere.get(name);
    if (until === undefined) return false;
    if (until > this.#options.clock.monotonic()) return true;
    this.#standingElsewhere.delete(name);
    return false;
  }

  /** Renews the standing leases every quarter lease, between runs (a run renews its own as it goes). */
  startRenewing(): void {
    this.#renewals = setInterval(() => this.#renewStanding(), this.#options.ttlMs / 4);
  }

  /** Polls the leases and the projections' states every period (lease-poll.ts). */
  startPolling(): void {
    const { logger, pollIntervalMs, ttlMs } = this.#options;
    this.#polls = setInterval(() => {
      this.#leases.poll().catch((error: unknown) => logger.warn({ err: error }, 'could not read the projection states and leases'));
    }, Math.min(pollIntervalMs, ttlMs / 4));
  }

  /** Stops renewing and polling. */
  stopTimers(): void {
    if (this.#renewals) clearInterval(this.#renewals);
    if (this.#polls) clearInterval(this.#polls);
  }

  /** Releases every standing lease: the next owner takes them at once, instead of a lease's length later. */
  releaseAll(): Promise<unknown> {
    return Promise.all([...this.#standing].map(([name, lease]) => this.giveBack(name, lease)));
  }

  /** Projections whose lease this worker last saw unchanged for a whole lease: no live owner (lease-poll.ts). */
  ownerless(): string[] {
    return this.#leases.ownerless();
  }

  /**
   * Keeps the standing leases alive between runs; one found taken or out of reach is dropped, and then lapses:
   * whichever worker's job comes next takes the projection.
   */
  #renewStanding(): void {
    const { lanes, counters, logger } = this.#options;
    for (const [name, lease] of this.#standing) {
      if (lanes.busy(name)) continue;
      void lanes.run(name, async () => {
        if (this.#standing.get(name) !== lease) return;
        try {
          await lease.ensure();
        } catch (error) {
          this.#standing.delete(name);
          if (error instanceof LeaseLostError) {
            counters.leaseLost += 1;
            logger.info({ projection: name, reason: error.message }, 'standing projection lease lost: the new owner carries on');
          } else {
            logger.warn({ err: error, projection: name }, 'could not renew a standing projection lease; it lapses for another worker to take');
          }
        }
      });
    }
  }
}
