/**
 * Projector processes simulated in one test process, for the projection guarantee tests (issue 20): each worker
 * has its own queue and its own steered connection (controlled-read-store.ts) to one shared read store, as
 * several projector processes share one MongoDB; two workers running one projection at once is what BullMQ does
 * after a lost lock. What every test compares the read models with is a clean rebuild of the same history.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { JobQueue, RetryPolicy } from '../../shared/ports/job-queue.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector, ProjectorOptions } from '../../projector/projector.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import type { LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { snapshot } from '../projector/support/history.ts';
import { controlledReadStore, type ControlledReadStore } from './controlled-read-store.ts';

export const silentLogger = pino({ level: 'silent' });

export interface SimulatedWorker {
  control: ControlledReadStore;
  queue: JobQueue;
  projector: Projector;
  close(): Promise<void>;
  /**
   * Ends it as a killed process ends: its store calls fail from now on and its queue connections are dropped after
   * at most a second, whatever a graceful close would still wait for (BullMQ waits for the job the kill cut short,
   * and its clients may be reconnecting after a Redis outage). Closing it afterwards returns the same promise.
   */
  kill(): Promise<void>;
}

export interface WorkerSettings {
  projections?: readonly Projection[];
  batchSize?: number;
  policy?: RetryPolicy;
  pollIntervalMs?: number;
  /** The lease clock (fakeClock() lets a test expire a lease at once). */
  clock?: LeaseClock;
  /** The worker's queue (default: its own in-process one, as if BullMQ's lock had been lost). */
  queue?: JobQueue;
  /** Anything else the runner takes (leases, clocks), passed as it is. */
  extra?: Partial<ProjectorOptions>;
}

export function simulatedWorker(eventStore: EventStore, shared: ReadStore, settings: WorkerSettings = {}): SimulatedWorker {
  const control = controlledReadStore(shared);
  const queue = settings.queue ?? createInlineJobQueue(settings.policy ?? { attempts: 3, backoffMs: 5 });
  const projector = createProjector({
    eventStore, readStore: control.store, queue, logger: silentLogger,
    ...(settings.projections ? { projections: settings.projections } : {}),
    batchSize: settings.batchSize ?? 1,
    pollIntervalMs: settings.pollIntervalMs ?? 60_000,
    // Engine errors are retried after 1 to 20 ms here, not 100 ms to 2 s: the same loop, a test's pace.
    backoff: { firstMs: 1, maxMs: 20 },
    ...(settings.clock ? { clock: settings.clock } : {}),
    ...settings.extra,
  });
  let closed: Promise<void> | undefined;
  return {
    control, queue, projector,
    close() {
      closed ??= (async () => {
        control.heal();
        await projector.stop().catch(() => undefined);
        await queue.close();
      })();
      return closed;
    },
    kill() {
      control.kill();
      closed ??= (async () => {
        await projector.stop().catch(() => undefined);
        await Promise.race([queue.close().catch(() => undefined), delay(1_000)]);
      })();
      return closed;
    },
  };
}

/**
 * What readers see: every projected document of the live generations, and each projection's position and status
 * (not its generation number, nor when it was written: a clean rebuild numbers and times them its own way).
 */
export async function readersView(store: ReadStore): Promise<Record<string, StoredDoc[]>> {
  const view = await snapshot(store);
  const states = await readProjectionStates(store);
  view['checkpoints'] = states.sort((a, b) => a.name.localeCompare(b.name))
    .map((state) => ({ _id: state.name, position: state.position, status: state.status }) as StoredDoc);
  return view;
}

/** The positions projections have reached, as readers see them. */
export async function positionsSeen(store: ReadStore): Promise<Map<string, number>> {
  return new Map((await readProjectionStates(store)).map((state) => [state.name, state.position]));
}

/** A lease clock that moves only when told: a lease expires at once, without waiting for it. */
export interface FakeClock extends LeaseClock {
  advance(ms: number): void;
}

export function fakeClock(): FakeClock {
  let now = 1_700_000_000_000;
  return { monotonic: () => now, wall: () => now, advance: (ms) => { now += ms; } };
}

/** What a clean rebuild of the whole history into an empty store gives readers. */
export async function cleanRebuildView(eventStore: EventStore, projections: readonly Projection[] = PROJECTIONS): Promise<Record<string, StoredDoc[]>> {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh, projections });
  return readersView(fresh);
}
