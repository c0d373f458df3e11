/**
 * What a projector is to those who run it (the process mains, the tests, the bench): its options, the counters of
 * what its jobs met, and its operations. The runner (runner.ts, composing ownership.ts, catch-up-agent.ts and
 * wake-ups.ts) is the one implementation.
 */
import type { Logger } from '../shared/logging/logger.ts';
import type { EventStore } from '../shared/ports/event-store.ts';
import type { JobQueue } from '../shared/ports/job-queue.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import type { LeaseClock } from '../shared/read-model/projections/lease.ts';
import type { Projection } from '../shared/read-model/projections/projection.ts';
import type { ProjectionStatus } from './progress-board.ts';

export interface ProjectorOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  queue: JobQueue;
  logger: Logger;
  /** Defaults to every projection of the service. */
  projections?: readonly Projection[];
  /** Events read and applied per bulk write; default 2,000. */
  batchSize?: number;
  /** Period of the signal that catches a lost feed notification, and of the store's states read; default 5,000 ms. */
  pollIntervalMs?: number;
  /** Lease length; default 10 s. */
  leaseTtlMs?: number;
  clock?: LeaseClock;
  /** Failures in a row of one event before its projection parks; default 3. */
  poisonAttempts?: number;
  /**
   * How long a started worker leaves unstored the checkpoint of a run that changed none of its projection's
   * documents; default 250 ms.
   */
  unchangedCheckpointDelayMs?: number;
  /** Backoff between retries of an engine that fails: first delay, doubled up to the cap; default 100 ms, 2 s. */
  backoff?: { firstMs: number; maxMs: number };
  /**
   * This worker's lease owner id; default host, pid and a random part. A process restarted under the same id takes
   * its previous incarnation's lease at once instead of waiting for it to expire (with a new token all the same).
   */
  owner?: string;
  /**
   * Told of every batch applied and checkpointed: its projection, how long reading, applying and the checkpoint took,
   * and the checkpoint stored (its generation and position). Told as soon as readers can see the checkpoint, which
   * may be before the store made sure it stands (`ReadStore.setControl`): the word to the replicas is only a hint.
   */
  onBatch?: (projection: string, seconds: number, stored: { generation: number; position: number }) => void;
}

/** What the jobs met, for logs and metrics: no job ends without a trace. */
export interface ProjectorCounters {
  /** Jobs that found their projection parked. */
  parkedSkips: number;
  /** Times a job found the lease held by another owner (and ended, or waited for a passing one). */
  leaseHeld: number;
  /** Jobs ended because a newer owner took the lease (or a rebuild switched the generation). */
  leaseLost: number;
  /** Batches abandoned on a write conflict and read again. */
  conflicts: number;
  /** Retries after an engine error. */
  retries: number;
  /** Jobs that met engine errors for longer than a lease and handed their projection back to the queue. */
  handedBack: number;
}

export interface Projector {
  /**
   * Takes jobs from the queue, listens to the feed, starts the periodic signal and signals every projection.
   * A started projector keeps the process alive until `stop()`.
   */
  start(): void;
  /** Stops taking signals and lets running catch-ups end after their current batch. The queue is the caller's to close. */
  stop(): Promise<void>;
  /**
   * Runs every projection to the head now, in this process, through the same leases as the jobs. Resolves when all
   * are done; a projection whose engine fails is logged and handed to the queue instead of failing the others.
   */
  catchUp(): Promise<void>;
  positions(): Record<string, number>;
  status(): ProjectionStatus[];
  counters(): ProjectorCounters;
  /** Projections whose lease this worker last saw unchanged for a whole lease: no live owner (lease-poll.ts). */
  ownerless(): string[];
  /** Resolves once every projection has applied the history up to `position` (a writer reading its own writes). */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
}

export type { ProjectionStatus } from './progress-board.ts';
