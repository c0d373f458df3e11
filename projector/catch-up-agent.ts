/**
 * The catch-up of one projection (Marten's agent of one shard): a run under the projection's lease reads the events
 * after the checkpoint of the live generation in batches, applies each batch in memory (batch.ts), writes it as one
 * bulk of compare-and-set writes, stores the checkpoint under the lease's token, and loops to the head. A crash
 * between a write and its checkpoint replays harmlessly: documents carry the position they reflect and older writes
 * are skipped.
 *
 * Failures heal or say why. An engine that is down or slow (store, event store, queue) is retried without limit,
 * with capped backoff, so the projection resumes by itself once it is back. A write conflict (another writer changed
 * a document since it was read) abandons the batch, which is read again. A lost lease ends the run: the new owner
 * carries on. Only an event that fails its projection `poisonAttempts` times in a row parks that projection,
 * recorded in its checkpoint for every process to see, until `watchcat projections resume`.
 */
import { setTimeout as delay, setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from '../shared/logging/logger.ts';
import type { EventStore } from '../shared/ports/event-store.ts';
import { StaleGenerationError, WriteConflictError, type ReadStore } from '../shared/ports/read-store.ts';
import { projectBatch, ProjectionEventError } from '../shared/read-model/projections/batch.ts';
import { headConfirmation, readMoment } from '../shared/read-model/projections/control-docs.ts';
import { LeaseLostError, type LeaseClock, type ProjectionLease } from '../shared/read-model/projections/lease.ts';
import type { Projection } from '../shared/read-model/projections/projection.ts';
import { appliedOf, historyLost, type HistoryLost } from '../shared/read-model/projections/history-check.ts';
import type { Ownership } from './ownership.ts';
import type { ProgressBoard } from './progress-board.ts';
import type { ProjectorCounters, ProjectorOptions } from './projector.ts';
import type { OwnConfirmations } from './reconfirmation.ts';

type Outcome = 'done' | 'parked' | 'held';

/** The checkpoints a started worker leaves unstored for a moment after a run at the head that changed nothing. */
export interface DelayedCheckpoints {
  /** Whether the checkpoint of `name` was left for this run to store (and it is no longer due). */
  due(name: string): boolean;
  /** Asks for a run that stores the checkpoint of `name` a moment later. */
  delay(name: string): void;
}

interface CatchUpAgentOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  logger: Logger;
  ownership: Pick<Ownership, 'standingLease' | 'take' | 'keep' | 'giveBack' | 'standingFor' | 'standingElsewhere'>;
  checkpoints: DelayedCheckpoints;
  board: ProgressBoard;
  counters: ProjectorCounters;
  confirmations: OwnConfirmations;
  clock: LeaseClock;
  ttlMs: number;
  batchSize: number;
  poisonAttempts: number;
  backoff: NonNullable<ProjectorOptions['backoff']>;
  onBatch: ProjectorOptions['onBatch'];
  /** Aborted when the projector stops. */
  stopped: AbortSignal;
  /** Whether the projector was started: only a started worker keeps leases and delays checkpoints. */
  started: () => boolean;
}

export class CatchUpAgent {
  /** The event this projection last failed on, and how many times in a row. */
  #poison: { position: number; failures: number } | undefined;

  constructor(readonly projection: Projection, private readonly options: CatchUpAgentOptions) {}

  /**
   * Runs the projection to the head, retrying what fails; a lease held elsewhere is waited for (it is released at
   * the end of its owner's run, or expires). `persistent`: engine errors are retried without limit (a job);
   * otherwise (the catch-up at start) they are thrown after logging. A job that has met nothing but engine errors
   * for longer than a lease hands its projection back to the queue: its own lease has lapsed by then, and a worker
   * cut off from an engine that others reach (a partition) must not hold the projection's one queued job for ever;
   * the next signal (the periodic one at the latest) runs it on any worker.
   */
  async run(persistent: boolean): Promise<void> {
    const { ownership, counters, logger, clock, ttlMs, backoff, stopped } = this.options;
    const { name } = this.projection;
    let failures = 0;
    let failingSince: number | undefined;
    while (!stopped.aborted) {
      try {
        const outcome = await this.#runOnce();
        failingSince = undefined;
        if (outcome !== 'held') return;
        const standingFor = await ownership.standingFor(name);
        // Counted once the job knows what it found: a count seen then comes with the standing lease recorded.
        counters.leaseHeld += 1;
        if (standingFor !== null) {
          ownership.standingElsewhere(name, standingFor);
          logger.debug({ projection: name }, 'projection lease standing with another worker, which runs it on its own signals');
          return;
        }
        logger.debug({ projection: name }, 'projection lease held by another worker; waiting');
      } catch (error) {
        if (error instanceof LeaseLostError || error instanceof StaleGenerationError) {
          counters.leaseLost += 1;
          logger.info({ projection: name, reason: error.message }, 'projection lease lost: the new owner carries on');
          return;
        }
        if (error instanceof WriteConflictError) {
          counters.conflicts += 1;
          logger.debug({ projection: name, reason: error.message }, 'write conflict: batch read again');
        } else if (!persistent) throw error;
        else {
          failingSince ??= clock.monotonic();
          if (clock.monotonic() - failingSince > ttlMs) {
            counters.handedBack += 1;
            logger.warn({ err: error, projection: name, failures }, 'projection run failing for longer than a lease: handed back to the queue');
            return;
          }
          counters.retries += 1;
          logger.warn({ err: error, projection: name, failures }, 'projection run failed; retrying');
        }
      }
      await this.#pause(Math.min(backoff.firstMs * 2 ** failures, backoff.maxMs));
      failures = Math.min(failures + 1, 30);
    }
  }

  /** Waits `ms`, or less when the projector stops. */
  #pause(ms: number): Promise<void> {
    return delay(ms, undefined, { signal: this.options.stopped }).catch(() => undefined);
  }

  /** One run under the lease: to the head, or until the projection parks. */
  async #runOnce(): Promise<Outcome> {
    const { ownership, readStore, eventStore, board, counters, confirmations, checkpoints, logger, clock, ttlMs, batchSize, stopped } = this.options;
    const { projection } = this;
    const lease = ownership.standingLease(projection.name) ?? await ownership.take(projection, this.options.started());
    if (!lease) return 'held';
    let reachedHead = false;
    try {
      const checkpoint = lease.current;
      board.advance(projection.name, checkpoint.position);
      if (checkpoint.status === 'parked' && checkpoint.parked) {
        board.park(projection.name, checkpoint.parked);
        counters.parkedSkips += 1;
        logger.warn({ projection: projection.name, parked: checkpoint.parked }, 'projection is parked: job skipped until `watchcat projections resume`');
        return 'parked';
      }
      // Before reading after it: the event it applied last still in the history. Once a run, not a batch: what this
      // run reads next follows what it read itself.
      if (await this.#parkIfLost(lease, await historyLost(eventStore, checkpoint, false))) return 'parked';
      board.resume(projection.name);
      const target = readStore.generation(projection.collection, lease.generation);
      // A long batch checks the lease within a small part of it, and lets requests and the queue's own lock renewal
      // in: applying a batch is synchronous work, which nothing else interrupts.
      const checkIn = {
        everyMs: Math.min(ttlMs / 10, 100), now: () => clock.monotonic(),
        run: async () => {
          await lease.ensure();
          await yieldToEventLoop();
        },
      };
      let position = checkpoint.position;
      const storeEveryCheckpoint = !this.options.started() || checkpoints.due(projection.name);
      while (!stopped.aborted) {
        const readAt = readMoment(clock);
        const batchStarted = performance.now();
        const events = await eventStore.readAll({ after: position, limit: batchSize });
        const last = events.at(-1);
        // A short read reached the head as it stood when it was read: once applied, that head is confirmed, which
        // is what every process judges this read model's freshness by (even under a load that never lets it idle),
        // with how long ago it was read.
        const readToHead = events.length < batchSize;
        const headRead = { head: last?.position ?? position, ...readAt };
        if (!last) {
          // Nothing new. The head is confirmed again, unless this checkpoint confirmed this very head a moment ago:
          // a signal whose work another run did (several come for each append) then writes nothing at all.
          if (!confirmations.lately(projection.name, lease.current, position)) {
            // What it confirms is its own checkpoint, as the head: only while the history still reaches it.
            // The event there was found at the run's start, or just read: the head alone is read again.
            if (await this.#parkIfLost(lease, await historyLost(eventStore, { position }, true))) return 'parked';
            const confirmed = headConfirmation(headRead, clock.monotonic());
            await lease.saveCheckpoint(position, lease.generation, confirmed);
            confirmations.made(projection.name, confirmed);
          }
          break;
        }
        let ops;
        try {
          ops = await projectBatch(projection, events, target, { checkIn });
        } catch (error) {
          if (!(error instanceof ProjectionEventError)) throw error;
          if (!(await this.#countPoison(lease, error))) throw error;
          return 'parked';
        }
        // At the head with nothing of this projection changed, the checkpoint is stored a moment later.
        if (ops.length === 0 && readToHead && !storeEveryCheckpoint) checkpoints.delay(projection.name);
        else {
          await lease.ensure();
          if (ops.length > 0) await lease.write(target, ops);
          const { generation } = lease;
          const confirmed = readToHead ? headConfirmation(headRead, clock.monotonic()) : undefined;
          await lease.saveCheckpoint(last.position, generation, confirmed, () =>
            this.options.onBatch?.(projection.name, (performance.now() - batchStarted) / 1e3, { generation, position: last.position }), appliedOf(events, position));
          confirmations.made(projection.name, confirmed);
        }
        position = last.position;
        this.#poison = undefined;
        board.advance(projection.name, position);
        // A short read reached the head: reading once more would find nothing and store the same checkpoint again.
        if (readToHead) break;
        // Requests and other projections of this process get their turn between batches: an in-memory store's
        // reads and writes resolve at once, so a long catch-up would otherwise hold the event loop to the head.
        await yieldToEventLoop();
      }
      reachedHead = this.options.started() && !stopped.aborted;
      return 'done';
    } finally {
      if (reachedHead) ownership.keep(projection.name, lease);
      else await ownership.giveBack(projection.name, lease);
    }
  }

  /**
   * Parks the projection (true) when the history no longer holds the events its checkpoint counts (shared/read-model/projections/history-check.ts):
   * until a rebuild from the history, it is served as parked, stale, never confirmed again (docs/api.md, "Recovery").
   */
  async #parkIfLost(lease: ProjectionLease, lost: HistoryLost | undefined): Promise<boolean> {
    if (!lost) return false;
    const { board, logger } = this.options;
    const { position } = lease.current;
    await lease.park(position, lost.reason);
    board.park(this.projection.name, { position, reason: lost.reason });
    logger.error({ projection: this.projection.name, head: lost.head, position, alert: 'history behind the read models' }, `projection parked: ${lost.reason}`);
    return true;
  }

  /** Counts a failure of one event; parks the projection (true) once it failed `poisonAttempts` times in a row. */
  async #countPoison(lease: ProjectionLease, error: ProjectionEventError): Promise<boolean> {
    const { board, logger, poisonAttempts } = this.options;
    const failures = this.#poison?.position === error.position ? this.#poison.failures + 1 : 1;
    this.#poison = { position: error.position, failures };
    if (failures < poisonAttempts) {
      logger.warn({ err: error, projection: error.projection, failures }, 'projection failed on an event; retrying');
      return false;
    }
    const parked = { position: error.position, reason: error.message };
    await lease.park(parked.position, parked.reason);
    this.#poison = undefined;
    board.park(error.projection, parked);
    logger.error({ err: error, projection: error.projection, failures }, 'projection parked on an event it cannot apply');
    return true;
  }
}
