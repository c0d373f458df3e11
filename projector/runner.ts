/**
 * The projector: one checkpointed catch-up per projection, run as queue jobs and on this worker's own signals, split
 * the way Marten splits its async daemon. This module only composes the parts:
 * - ownership.ts: the leases (one writer, fenced), the standing ones kept and renewed between runs, the takeovers
 *   of the lease poll (lease-poll.ts);
 * - catch-up-agent.ts: one per projection, its runs to the head (batches, checkpoints, retries, poison events and
 *   parking);
 * - wake-ups.ts: what starts a run (the event store's feed, the periodic signal, the queue's jobs, later runs,
 *   reconfirmations, delayed checkpoints);
 * - run-lanes.ts: the runs of one projection in this process, one after another.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { DEFAULT_LEASE_TTL_MS, SYSTEM_CLOCK } from '../shared/read-model/projections/lease.ts';
import { PROJECTIONS } from '../shared/read-model/projections/index.ts';
import { CatchUpAgent } from './catch-up-agent.ts';
import { Ownership } from './ownership.ts';
import { ProgressBoard } from './progress-board.ts';
import type { Projector, ProjectorCounters, ProjectorOptions } from './projector.ts';
import { OwnConfirmations } from './reconfirmation.ts';
import { RunLanes } from './run-lanes.ts';
import { WakeUps } from './wake-ups.ts';

export function createProjector(options: ProjectorOptions): Projector {
  const { eventStore, readStore, queue, logger } = options;
  const projections = options.projections ?? PROJECTIONS;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const byName = new Map(projections.map((projection) => [projection.name, projection]));
  const names = [...byName.keys()];
  const board = new ProgressBoard(names);
  const counters: ProjectorCounters = { parkedSkips: 0, leaseHeld: 0, leaseLost: 0, conflicts: 0, retries: 0, handedBack: 0 };
  const lanes = new RunLanes();
  const stopped = new AbortController();
  let started = false;

  const ownership = new Ownership({
    readStore, logger, board, counters, lanes, names, ttlMs, clock, pollIntervalMs,
    owner: options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    takeOver: (name) => wakeUps.runHere(name),
  });
  const wakeUps = new WakeUps({
    eventStore, queue, logger, lanes, ownership, projections: byName, stopped: stopped.signal, pollIntervalMs,
    agentOf: (name) => agentOf(name),
    // Each append wakes every projection and most change nothing (a stolen report, for the watches): storing their
    // checkpoints at once put three round trips each into the burst of writes that the projections with changes wait
    // behind (issue 29). Their documents are as of the head all the same; their checkpoints follow a moment later.
    unchangedCheckpointDelayMs: options.unchangedCheckpointDelayMs ?? 250,
  });
  const confirmations = new OwnConfirmations(() => clock.monotonic());
  const agents = new Map([...byName].map(([name, projection]) => [name, new CatchUpAgent(projection, {
    eventStore, readStore, logger, ownership, checkpoints: wakeUps, board, counters, confirmations, clock, ttlMs,
    batchSize: options.batchSize ?? 2_000,
    poisonAttempts: options.poisonAttempts ?? 3,
    backoff: options.backoff ?? { firstMs: 100, maxMs: 2_000 },
    onBatch: options.onBatch,
    stopped: stopped.signal,
    started: () => started,
  })]));

  function agentOf(name: string): CatchUpAgent {
    const agent = agents.get(name);
    if (!agent) throw new Error(`no projection named ${name}`);
    return agent;
  }

  return {
    start() {
      if (started) return;
      started = true;
      // In this order: timers of one period fire in the order they were set (renewals before the lease poll).
      wakeUps.listen();
      ownership.startRenewing();
      wakeUps.repeat();
      ownership.startPolling();
      wakeUps.signal();
    },

    async stop() {
      stopped.abort();
      wakeUps.stop();
      ownership.stopTimers();
      await lanes.settled();
      await ownership.releaseAll();
      board.cancelWaiters('the projector stopped');
    },

    async catchUp() {
      await Promise.all(projections.map(async (projection) => {
        try {
          await lanes.run(projection.name, () => agentOf(projection.name).run(false));
        } catch (error) {
          logger.warn({ err: error, projection: projection.name }, 'projection catch-up failed; the queue retries it');
          if (!stopped.signal.aborted) await queue.add(projection.name, projection.name);
        }
      }));
    },

    positions: () => board.positions(),
    status: () => board.status(),
    counters: () => ({ ...counters }),
    ownerless: () => ownership.ownerless(),
    waitFor: (position, timeoutMs = 10_000) => board.waitFor(position, timeoutMs),
  };
}
