/**
 * The projector: one checkpointed catch-up loop per projection, run as queue jobs. A job reads the events after
 * its projection's checkpoint in batches, applies each batch in memory, writes it as one bulk, then stores the
 * checkpoint, and loops to the head. The event store's feed only signals (one job per projection, deduplicated
 * by job id); a periodic signal catches a lost one. A crash between a write and its checkpoint replays
 * harmlessly: documents carry the position they reflect and older writes are skipped.
 *
 * A projection that throws on an event fails its job; the queue retries it with backoff and, after the last
 * attempt, the projection is marked failed (checkpoint `status: 'failed'`, `status()`, logs) and receives no more
 * signals in this process, while the others go on.
 */
import type { Logger } from '../shared/logging/logger.ts';
import type { EventStore } from '../shared/ports/event-store.ts';
import type { JobQueue } from '../shared/ports/job-queue.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import type { CheckpointDoc, ReadCollection } from '../shared/read-models/documents.ts';
import { projectBatch, type DocSource } from '../shared/projections/batch.ts';
import { advanceOps, checkpointDoc, loadCheckpoint, replaceOps } from '../shared/projections/checkpoints.ts';
import { ProgressBoard, type ProjectionStatus } from './progress-board.ts';
import type { Projection } from '../shared/projections/projection.ts';
import { PROJECTIONS } from '../shared/projections/index.ts';

export interface ProjectorOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  queue: JobQueue;
  logger: Logger;
  /** Defaults to every projection of the service. */
  projections?: readonly Projection[];
  /** Events read and applied per bulk write; default 2,000. */
  batchSize?: number;
  /** Period of the signal that catches a lost feed notification; default 5,000 ms. */
  pollIntervalMs?: number;
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
   * Runs every projection to the head now, in this process. Resolves when all are done; a projection that throws
   * is logged and handed to the queue for its retries instead of failing the others.
   */
  catchUp(): Promise<void>;
  positions(): Record<string, number>;
  status(): ProjectionStatus[];
  /** Resolves once every projection has applied the history up to `position` (a writer reading its own writes). */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
}

export type { ProjectionStatus } from './progress-board.ts';

export function storeSource(readStore: ReadStore, collection: ReadCollection): DocSource {
  return { getMany: (ids) => readStore.getMany(collection, ids), find: (filter) => readStore.find(collection, filter) };
}

export function createProjector(options: ProjectorOptions): Projector {
  const { eventStore, readStore, queue, logger } = options;
  const projections = options.projections ?? PROJECTIONS;
  const batchSize = options.batchSize ?? 2_000;
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const byName = new Map(projections.map((projection) => [projection.name, projection]));
  const board = new ProgressBoard([...byName.keys()]);
  const running = new Map<string, Promise<void>>();
  let stopping = false;
  let started = false;
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

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

  async function runToHead(projection: Projection): Promise<void> {
    const stored = await loadCheckpoint(readStore, projection.name);
    let position = stored?.position ?? 0;
    board.advance(projection.name, position);
    let advanced = false;
    while (!stopping) {
      const events = await eventStore.readAll({ after: position, limit: batchSize });
      const last = events.at(-1);
      if (!last) break;
      const ops = await projectBatch(projection, events, storeSource(readStore, projection.collection));
      if (ops.length > 0) await readStore.write(projection.collection, ops);
      await readStore.write('checkpoints', advanceOps(checkpointDoc(projection.name, last.position)));
      position = last.position;
      advanced = true;
      board.advance(projection.name, position);
    }
    if (!advanced && stored?.status === 'failed') {
      await readStore.write('checkpoints', replaceOps(checkpointDoc(projection.name, position)));
    }
    board.recover(projection.name);
  }

  function projectionNamed(name: string): Projection {
    const projection = byName.get(name);
    if (!projection) throw new Error(`no projection named ${name}`);
    return projection;
  }

  async function markFailed(name: string, error: Error, attemptsMade: number): Promise<void> {
    board.fail(name, error.message);
    logger.error({ projection: name, attemptsMade, err: error }, 'projection stopped on an event it cannot apply');
    const stored = await loadCheckpoint(readStore, name);
    await readStore.write('checkpoints', replaceOps(checkpointDoc(name, stored?.position ?? 0, error.message)));
  }

  function signal(): void {
    if (stopping) return;
    for (const name of byName.keys()) {
      if (board.isFailed(name)) continue;
      queue.add(name, name).catch((error: unknown) => logger.warn({ err: error, projection: name }, 'could not enqueue a projection job'));
    }
  }

  /** Positions other processes' workers reached (several projectors share one queue at scale). */
  async function refreshFromStore(): Promise<void> {
    const checkpoints = await readStore.find<CheckpointDoc>('checkpoints', {});
    for (const checkpoint of checkpoints) if (byName.has(checkpoint._id)) board.advance(checkpoint._id, checkpoint.position);
  }

  return {
    start() {
      if (started) return;
      started = true;
      queue.onFailed((name, error, attemptsMade) => {
        if (!byName.has(name)) return;
        markFailed(name, error, attemptsMade).catch((problem: unknown) => logger.error({ err: problem, projection: name }, 'could not store a failed checkpoint'));
      });
      queue.process(async (name) => {
        // A projection failed after its last retry stays stopped here; a queued follow-up must not restart it.
        if (stopping || board.isFailed(name)) return;
        const projection = projectionNamed(name);
        await exclusive(name, () => runToHead(projection));
      });
      unsubscribe = eventStore.onAppended(signal);
      timer = setInterval(() => {
        signal();
        refreshFromStore().catch((error: unknown) => logger.warn({ err: error }, 'could not read the checkpoints'));
      }, pollIntervalMs);
      signal();
    },

    async stop() {
      stopping = true;
      unsubscribe?.();
      if (timer) clearInterval(timer);
      await Promise.all(running.values());
      board.cancelWaiters('the projector stopped');
    },

    async catchUp() {
      await Promise.all(projections.map(async (projection) => {
        try {
          await exclusive(projection.name, () => runToHead(projection));
        } catch (error) {
          logger.warn({ err: error, projection: projection.name }, 'projection catch-up failed; the queue retries it');
          if (!stopping) await queue.add(projection.name, projection.name);
        }
      }));
    },

    positions: () => board.positions(),
    status: () => board.status(),
    waitFor: (position, timeoutMs = 10_000) => board.waitFor(position, timeoutMs),
  };
}
