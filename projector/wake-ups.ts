/**
 * What wakes a projection's catch-up in this worker. The event store's feed only signals; a periodic signal catches
 * a lost one. A signal runs here each projection whose lease this worker keeps standing (ownership.ts), at once or
 * `afterSignalMs` later, and queues a job for each of the others (one per projection, deduplicated by job id),
 * unless another live worker keeps it standing: that worker has the same signals. Jobs from the queue run here,
 * whoever queued them; one for a projection this worker keeps standing is one signal more. Besides: the
 * reconfirmation of an idle projection's head every second (reconfirmation.ts), the checkpoints left unstored a
 * moment by a run that changed nothing (later-runs.ts), and the lease poll's takeovers. However many ask meanwhile, a projection has at most one run asked for and not started in this process.
 */
import type { Logger } from '../shared/logging/logger.ts';
import type { EventStore } from '../shared/ports/event-store.ts';
import type { JobQueue } from '../shared/ports/job-queue.ts';
import type { Projection } from '../shared/read-model/projections/projection.ts';
import type { CatchUpAgent, DelayedCheckpoints } from './catch-up-agent.ts';
import { LaterRuns } from './later-runs.ts';
import type { Ownership } from './ownership.ts';
import { RECONFIRM_EVERY_MS } from './reconfirmation.ts';
import type { RunLanes } from './run-lanes.ts';

interface WakeUpsOptions {
  eventStore: Pick<EventStore, 'onAppended'>;
  queue: JobQueue;
  logger: Logger;
  lanes: RunLanes;
  ownership: Pick<Ownership, 'keeps' | 'kept' | 'isStandingElsewhere'>;
  /** The projections this worker runs, by name. */
  projections: ReadonlyMap<string, Projection>;
  /** The catch-up of the projection `name`; throws for a projection this worker does not run. */
  agentOf: (name: string) => Pick<CatchUpAgent, 'run'>;
  /** Aborted when the projector stops. */
  stopped: AbortSignal;
  /** Period of the signal that catches a lost feed notification. */
  pollIntervalMs: number;
  /** How long a checkpoint left unstored by a run that changed nothing waits. */
  unchangedCheckpointDelayMs: number;
}

export class WakeUps implements DelayedCheckpoints {
  readonly #options: WakeUpsOptions;
  readonly #later = new LaterRuns((name) => this.runHere(name));
  /** Projections whose next run stores the checkpoint a run that changed nothing left unstored. */
  readonly #checkpointDue = new Set<string>();
  /** Projections with a run in this process asked for and not started yet (signals meanwhile add nothing). */
  readonly #pendingHere = new Set<string>();
  #unsubscribe: (() => void) | undefined;
  #reconfirms: NodeJS.Timeout | undefined;
  #signals: NodeJS.Timeout | undefined;

  constructor(options: WakeUpsOptions) {
    this.#options = options;
  }

  /** Takes the queue's jobs and listens to the event store's feed. */
  listen(): void {
    const { queue, eventStore, logger, lanes, stopped, agentOf } = this.#options;
    queue.onFailed((name, error, attemptsMade) => {
      logger.error({ projection: name, attemptsMade, err: error }, 'projection job failed after its queue retries; the next signal runs it again');
    });
    queue.process(async (name) => {
      if (stopped.aborted) {
        logger.info({ projection: name }, 'projection job not run: the projector is stopping');
        return;
      }
      // A projection this worker keeps standing runs on its own signals: a job for it is one signal more, its run
      // shared with theirs and the log's `afterSignalMs` kept (issue 44: another worker's job ran the log at once,
      // in the burst of writes that the read models of an append wait behind).
      if (this.#options.ownership.keeps(name)) {
        this.#signalHere(name);
        return;
      }
      const agent = agentOf(name);
      await lanes.run(name, () => agent.run(true));
    });
    this.#unsubscribe = eventStore.onAppended(() => this.signal());
  }

  /** Starts the reconfirmations of the standing projections and the periodic signal. */
  repeat(): void {
    this.#reconfirms = setInterval(() => {
      for (const name of this.#options.ownership.kept()) this.runHere(name);
    }, RECONFIRM_EVERY_MS);
    this.#signals = setInterval(() => this.signal(), this.#options.pollIntervalMs);
  }

  /**
   * Runs each projection this worker holds a standing lease on here (`afterSignalMs` later, if it says so), and
   * hands to the queue those no other worker is known to hold standing.
   */
  signal(): void {
    const { stopped, projections, ownership, queue, logger } = this.#options;
    if (stopped.aborted) return;
    for (const name of projections.keys()) {
      if (!ownership.keeps(name)) {
        if (!ownership.isStandingElsewhere(name)) queue.add(name, name).catch((error: unknown) => logger.warn({ err: error, projection: name }, 'could not enqueue a projection job'));
      } else this.#signalHere(name);
    }
  }

  /** Runs `name`, whose lease this worker keeps standing, here: at once, or `afterSignalMs` later if it says so. */
  #signalHere(name: string): void {
    const afterSignalMs = this.#options.projections.get(name)?.afterSignalMs;
    if (afterSignalMs === undefined) this.runHere(name);
    else this.#later.ask(name, afterSignalMs);
  }

  /** One run of `name` in this process after the one under way, however many signals ask for it meanwhile. */
  runHere(name: string): void {
    const { lanes, agentOf, logger } = this.#options;
    if (this.#pendingHere.has(name)) return;
    this.#pendingHere.add(name);
    void lanes.run(name, async () => {
      this.#pendingHere.delete(name);
      await agentOf(name).run(true);
    }).catch((error: unknown) => logger.warn({ err: error, projection: name }, 'projection run failed'));
  }

  due(name: string): boolean {
    return this.#checkpointDue.delete(name);
  }

  delay(name: string): void {
    this.#later.ask(name, this.#options.unchangedCheckpointDelayMs, () => this.#checkpointDue.add(name));
  }

  /** Stops listening and repeating; a checkpoint left for later is not stored: its next owner applies those events again, changing nothing. */
  stop(): void {
    this.#unsubscribe?.();
    if (this.#reconfirms) clearInterval(this.#reconfirms);
    if (this.#signals) clearInterval(this.#signals);
    this.#later.cancel();
  }
}
