/**
 * The projector: one checkpointed catch-up loop per projection, run as queue jobs. A job takes the projection's
 * lease (lease.ts: one writer, fenced), reads the events after the checkpoint of the live generation in batches,
 * applies each batch in memory, writes it as one bulk of compare-and-set writes, then stores the checkpoint under
 * its lease's token, and loops to the head. The event store's feed only signals (one job per projection,
 * deduplicated by job id); a periodic signal catches a lost one. A crash between a write and its checkpoint
 * replays harmlessly: documents carry the position they reflect and older writes are skipped.
 *
 * A worker keeps a lease it ran to the head (a standing lease, renewed in the background) and runs that projection
 * itself on every signal it gets, without the queue: taking a lease costs a dozen round trips to the store, which
 * at scale were most of the time from an append to the read models (issue 29). A job that finds a standing lease
 * held by another live worker ends: that worker has the same signals. One that finds a passing lease (a rebuild's
 * switch) waits for it as before. A standing lease that cannot be renewed is dropped; one whose worker died or
 * froze expires, and the next job takes it, or this worker's own poll of the leases (lease-poll.ts) while no job comes.
 *
 * Failures heal or say why. An engine that is down or slow (store, event store, queue) is retried inside the job
 * without limit, with capped backoff, so the projection resumes by itself once it is back. A write conflict (another
 * writer changed a document since it was read) abandons the batch, which is read again. A lost lease ends the job:
 * the new owner carries on. Only an event that fails its projection `poisonAttempts` times in a row parks that
 * projection, recorded in its checkpoint for every process to see, until `watchcat projections resume`.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay, setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { StaleGenerationError, WriteConflictError } from '../shared/ports/read-store.ts';
import { projectBatch, ProjectionEventError } from '../shared/projections/batch.ts';
import { DEFAULT_LEASE_TTL_MS, LeaseLostError, ProjectionLease, SYSTEM_CLOCK } from '../shared/projections/lease.ts';
import { LeaseWatch } from '../shared/projections/lease-watch.ts';
import { leasePoll } from './lease-poll.ts';
import { headConfirmation } from '../shared/projections/control-docs.ts';
import { LaterRuns } from './later-runs.ts';
import { ProgressBoard } from './progress-board.ts';
import { OwnConfirmations, RECONFIRM_EVERY_MS } from './reconfirmation.ts';
import type { Projector, ProjectorCounters, ProjectorOptions } from './projector.ts';
import type { Projection } from '../shared/projections/projection.ts';
import { PROJECTIONS } from '../shared/projections/index.ts';

type Outcome = 'done' | 'parked' | 'held';

/**
 * How long a worker that found another's standing lease trusts it without looking again: a stopping owner releases
 * its lease, and the others' signals must find it free within about this long.
 */
const STANDING_RECHECK_MS = 1_000;

export function createProjector(options: ProjectorOptions): Projector {
  const { eventStore, readStore, queue, logger } = options;
  const projections = options.projections ?? PROJECTIONS;
  const batchSize = options.batchSize ?? 2_000;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const poisonAttempts = options.poisonAttempts ?? 3;
  const backoff = options.backoff ?? { firstMs: 100, maxMs: 2_000 };
  // Each append wakes every projection and most change nothing (a stolen report, for the watches): storing their
  // checkpoints at once put three round trips each into the burst of writes that the projections with changes wait
  // behind (issue 29). Their documents are as of the head all the same; their checkpoints follow a moment later.
  const unchangedCheckpointDelayMs = options.unchangedCheckpointDelayMs ?? 250;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const byName = new Map(projections.map((projection) => [projection.name, projection]));
  const board = new ProgressBoard([...byName.keys()]);
  const running = new Map<string, Promise<void>>();
  /** The event each projection last failed on, and how many times in a row. */
  const poison = new Map<string, { position: number; failures: number }>();
  const counters: ProjectorCounters = { parkedSkips: 0, leaseHeld: 0, leaseLost: 0, conflicts: 0, retries: 0, handedBack: 0 };
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const leaseOptions = { ttlMs: leaseTtlMs, clock, watch: new LeaseWatch() };
  const confirmations = new OwnConfirmations(() => clock.monotonic());
  /** The leases this worker keeps between runs, by projection. */
  const standing = new Map<string, ProjectionLease>();
  /**
   * Until when (monotonic ms) this worker counts on another's standing lease on a projection, as seen by a job: its
   * expiry by this worker's watch, and at most STANDING_RECHECK_MS. Until then its signals queue no job for that
   * projection, since that worker hears the same appends: each such job cost two reads of the control documents,
   * for every projection on every append (issue 29). A job queued by another worker (one that lost its standing lease
   * to a rebuild, say) still runs here.
   */
  const standingElsewhere = new Map<string, number>();
  const later = new LaterRuns(runHere);
  /** Projections whose next run stores the checkpoint a run that changed nothing left unstored. */
  const checkpointDue = new Set<string>();
  /** Projections with a run in this process asked for and not started yet (signals meanwhile add nothing). */
  const pendingHere = new Set<string>();
  const stopped = new AbortController();
  let started = false;
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let renewals: NodeJS.Timeout | undefined;
  let reconfirms: NodeJS.Timeout | undefined;
  let leasePolls: NodeJS.Timeout | undefined;

  /** Runs `work` for one projection after any run of it already under way in this process. */
  function exclusive(name: string, work: () => Promise<void>): Promise<void> {
    const previous = running.get(name);
    const run = (async () => {
      if (previous) await previous;
      await work();
    })();
    const settled = run.catch(() => undefined);
    running.set(name, settled);
    void settled.then(() => {
      if (running.get(name) === settled) running.delete(name);
    });
    return run;
  }

  /** Waits `ms`, or less when the projector stops. */
  const pause = (ms: number): Promise<void> => delay(ms, undefined, { signal: stopped.signal }).catch(() => undefined);

  /** One run under the lease: to the head, or until the projection parks. */
  async function runOnce(projection: Projection): Promise<Outcome> {
    // Only a started worker keeps a lease: it alone gets the signals a standing owner answers (catchUp runs alone).
    const lease = standing.get(projection.name) ?? await ProjectionLease.acquire(readStore, projection, owner, { ...leaseOptions, standing: started });
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
      board.resume(projection.name);
      const target = readStore.generation(projection.collection, lease.generation);
      // A long batch checks the lease within a small part of it, and lets requests and the queue's own lock renewal
      // in: applying a batch is synchronous work, which nothing else interrupts.
      const checkIn = {
        everyMs: Math.min(leaseTtlMs / 10, 100), now: () => clock.monotonic(),
        run: async () => {
          await lease.ensure();
          await yieldToEventLoop();
        },
      };
      let position = checkpoint.position;
      const storeEveryCheckpoint = !started || checkpointDue.delete(projection.name);
      while (!stopped.signal.aborted) {
        const readAt = clock.wall();
        const batchStarted = performance.now();
        const events = await eventStore.readAll({ after: position, limit: batchSize });
        const last = events.at(-1);
        // A short read reached the head as it stood when it was read: once applied, that head is confirmed, which
        // is what every process judges this read model's freshness by (even under a load that never lets it idle).
        const confirmed = events.length < batchSize ? headConfirmation(last?.position ?? position, readAt) : undefined;
        if (!last) {
          // Nothing new. The head is confirmed again, unless this checkpoint confirmed this very head a moment ago:
          // a signal whose work another run did (several come for each append) then writes nothing at all.
          if (!confirmations.lately(projection.name, lease.current, position)) {
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
          if (!(await countPoison(lease, error))) throw error;
          return 'parked';
        }
        // At the head with nothing of this projection changed, the checkpoint is stored a moment later.
        if (ops.length === 0 && confirmed && !storeEveryCheckpoint) delayCheckpoint(projection.name);
        else {
          await lease.ensure();
          if (ops.length > 0) await lease.write(target, ops);
          await lease.saveCheckpoint(last.position, lease.generation, confirmed);
          confirmations.made(projection.name, confirmed);
          options.onBatch?.(projection.name, (performance.now() - batchStarted) / 1e3);
        }
        position = last.position;
        poison.delete(projection.name);
        board.advance(projection.name, position);
        // A short read reached the head: reading once more would find nothing and store the same checkpoint again.
        if (confirmed) break;
        // Requests and other projections of this process get their turn between batches: an in-memory store's
        // reads and writes resolve at once, so a long catch-up would otherwise hold the event loop to the head.
        await yieldToEventLoop();
      }
      reachedHead = started && !stopped.signal.aborted;
      return 'done';
    } finally {
      if (reachedHead) standing.set(projection.name, lease);
      else await giveBack(projection, lease);
    }
  }

  /** Releases a lease this worker will not keep (its run failed, parked or stopped). */
  async function giveBack(projection: Projection, lease: ProjectionLease): Promise<void> {
    if (standing.get(projection.name) === lease) standing.delete(projection.name);
    const released = await lease.release().catch((error: unknown) => {
      logger.warn({ err: error, projection: projection.name }, 'could not release a lease; it expires by itself');
      return true;
    });
    if (!released) {
      // Fenced before its release (paused past its lease): nothing it wrote after was taken. Counted where the run
      // ended on the lost lease, if it did; a run that ended first only finds out here.
      logger.info({ projection: projection.name }, 'projection lease lost before its release: the new owner carries on');
    }
  }

  /** Counts a failure of one event; parks the projection (true) once it failed `poisonAttempts` times in a row. */
  async function countPoison(lease: ProjectionLease, error: ProjectionEventError): Promise<boolean> {
    const seen = poison.get(error.projection);
    const failures = seen?.position === error.position ? seen.failures + 1 : 1;
    poison.set(error.projection, { position: error.position, failures });
    if (failures < poisonAttempts) {
      logger.warn({ err: error, projection: error.projection, failures }, 'projection failed on an event; retrying');
      return false;
    }
    const parked = { position: error.position, reason: error.message };
    await lease.park(parked.position, parked.reason);
    poison.delete(error.projection);
    board.park(error.projection, parked);
    logger.error({ err: error, projection: error.projection, failures }, 'projection parked on an event it cannot apply');
    return true;
  }

  /**
   * Runs a projection to the head, retrying what fails; a lease held elsewhere is waited for (it is released at
   * the end of its owner's run, or expires). `persistent`: engine errors are retried without limit (a job);
   * otherwise (the catch-up at start) they are thrown after logging. A job that has met nothing but engine errors
   * for longer than a lease hands its projection back to the queue: its own lease has lapsed by then, and a worker
   * cut off from an engine that others reach (a partition) must not hold the projection's one queued job for ever;
   * the next signal (the periodic one at the latest) runs it on any worker.
   */
  async function runProjection(projection: Projection, persistent: boolean): Promise<void> {
    let failures = 0;
    let failingSince: number | undefined;
    while (!stopped.signal.aborted) {
      try {
        const outcome = await runOnce(projection);
        failingSince = undefined;
        if (outcome !== 'held') return;
        const standingFor = await ProjectionLease.standingFor(readStore, projection.name, leaseOptions);
        // Counted once the job knows what it found: a count seen then comes with the standing lease recorded.
        counters.leaseHeld += 1;
        if (standingFor !== null) {
          standingElsewhere.set(projection.name, clock.monotonic() + Math.min(standingFor, STANDING_RECHECK_MS));
          logger.debug({ projection: projection.name }, 'projection lease standing with another worker, which runs it on its own signals');
          return;
        }
        logger.debug({ projection: projection.name }, 'projection lease held by another worker; waiting');
      } catch (error) {
        if (error instanceof LeaseLostError || error instanceof StaleGenerationError) {
          counters.leaseLost += 1;
          logger.info({ projection: projection.name, reason: error.message }, 'projection lease lost: the new owner carries on');
          return;
        }
        if (error instanceof WriteConflictError) {
          counters.conflicts += 1;
          logger.debug({ projection: projection.name, reason: error.message }, 'write conflict: batch read again');
        } else if (!persistent) throw error;
        else {
          failingSince ??= clock.monotonic();
          if (clock.monotonic() - failingSince > leaseTtlMs) {
            counters.handedBack += 1;
            logger.warn({ err: error, projection: projection.name, failures }, 'projection run failing for longer than a lease: handed back to the queue');
            return;
          }
          counters.retries += 1;
          logger.warn({ err: error, projection: projection.name, failures }, 'projection run failed; retrying');
        }
      }
      await pause(Math.min(backoff.firstMs * 2 ** failures, backoff.maxMs));
      failures = Math.min(failures + 1, 30);
    }
  }

  function projectionNamed(name: string): Projection {
    const projection = byName.get(name);
    if (!projection) throw new Error(`no projection named ${name}`);
    return projection;
  }

  /** Asks for a run that stores the checkpoint of `name` a moment later. */
  const delayCheckpoint = (name: string) => later.ask(name, unchangedCheckpointDelayMs, () => checkpointDue.add(name));

  /** Whether another worker's standing lease on `name` was seen lately, and is not known to have expired. */
  function isStandingElsewhere(name: string): boolean {
    const until = standingElsewhere.get(name);
    if (until === undefined) return false;
    if (until > clock.monotonic()) return true;
    standingElsewhere.delete(name);
    return false;
  }

  /**
   * Runs each projection this worker holds a standing lease on here (`afterSignalMs` later, if it says so), and
   * hands to the queue those no other worker is known to hold standing.
   */
  function signal(): void {
    if (stopped.signal.aborted) return;
    for (const [name, { afterSignalMs }] of byName) {
      if (!standing.has(name)) {
        if (!isStandingElsewhere(name)) queue.add(name, name).catch((error: unknown) => logger.warn({ err: error, projection: name }, 'could not enqueue a projection job'));
      } else if (afterSignalMs === undefined) runHere(name);
      else later.ask(name, afterSignalMs);
    }
  }

  /** One run of `name` in this process after the one under way, however many signals ask for it meanwhile. */
  function runHere(name: string): void {
    if (pendingHere.has(name)) return;
    pendingHere.add(name);
    void exclusive(name, async () => {
      pendingHere.delete(name);
      await runProjection(projectionNamed(name), true);
    }).catch((error: unknown) => logger.warn({ err: error, projection: name }, 'projection run failed'));
  }

  /**
   * Keeps the standing leases alive between runs (a run renews its own as it goes); one found taken or out of
   * reach is dropped, and then lapses: whichever worker's job comes next takes the projection.
   */
  function renewStanding(): void {
    for (const [name, lease] of standing) {
      if (running.has(name)) continue;
      void exclusive(name, async () => {
        if (standing.get(name) !== lease) return;
        try {
          await lease.ensure();
        } catch (error) {
          standing.delete(name);
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

  const leases = leasePoll({
    readStore, board, watch: leaseOptions.watch, names: [...byName.keys()], ttlMs: leaseTtlMs, monotonic: () => clock.monotonic(),
    holds: (name) => standing.has(name) || running.has(name), takeOver: runHere,
  });

  return {
    start() {
      if (started) return;
      started = true;
      queue.onFailed((name, error, attemptsMade) => {
        logger.error({ projection: name, attemptsMade, err: error }, 'projection job failed after its queue retries; the next signal runs it again');
      });
      queue.process(async (name) => {
        if (stopped.signal.aborted) {
          logger.info({ projection: name }, 'projection job not run: the projector is stopping');
          return;
        }
        const projection = projectionNamed(name);
        await exclusive(name, () => runProjection(projection, true));
      });
      unsubscribe = eventStore.onAppended(signal);
      renewals = setInterval(renewStanding, leaseTtlMs / 4);
      reconfirms = setInterval(() => { for (const name of standing.keys()) runHere(name); }, RECONFIRM_EVERY_MS); // reconfirmation.ts
      timer = setInterval(signal, pollIntervalMs);
      leasePolls = setInterval(() => {
        leases.poll().catch((error: unknown) => logger.warn({ err: error }, 'could not read the projection states and leases'));
      }, Math.min(pollIntervalMs, leaseTtlMs / 4));
      signal();
    },

    async stop() {
      stopped.abort();
      unsubscribe?.();
      if (timer) clearInterval(timer);
      if (renewals) clearInterval(renewals);
      if (reconfirms) clearInterval(reconfirms);
      if (leasePolls) clearInterval(leasePolls);
      // A checkpoint left for later is not stored: its next owner applies those events again, changing nothing.
      later.cancel();
      await Promise.all(running.values());
      // The next owner takes them at once, instead of a lease's length later.
      await Promise.all([...standing].map(([name, lease]) => giveBack(projectionNamed(name), lease)));
      board.cancelWaiters('the projector stopped');
    },

    async catchUp() {
      await Promise.all(projections.map(async (projection) => {
        try {
          await exclusive(projection.name, () => runProjection(projection, false));
        } catch (error) {
          logger.warn({ err: error, projection: projection.name }, 'projection catch-up failed; the queue retries it');
          if (!stopped.signal.aborted) await queue.add(projection.name, projection.name);
        }
      }));
    },

    positions: () => board.positions(),
    status: () => board.status(),
    counters: () => ({ ...counters }),
    ownerless: () => leases.ownerless(),
    waitFor: (position, timeoutMs = 10_000) => board.waitFor(position, timeoutMs),
  };
}
