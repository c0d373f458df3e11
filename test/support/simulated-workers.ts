/**
 * Projector processes simulated in one test process, for the projection guarantee tests (issue 20): each worker
 * has its own queue and its own steered connection (controlled-read-store.ts) to one shared read store, as
 * several projector processes share one MongoDB; two workers running one projection at once is what BullMQ does
 * after a lost lock. What every test compares the read models with is a clean rebuild of the same history.
 */
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { JobQueue, RetryPolicy } from '../../shared/ports/job-queue.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { CheckpointDoc } from '../../shared/read-models/documents.ts';
import { createProjector, type Projector, type ProjectorOptions } from '../../projector/runner.ts';
import { rebuild } from '../../shared/projections/rebuild.ts';
import type { Projection } from '../../shared/projections/projection.ts';
import { PROJECTIONS } from '../../shared/projections/index.ts';
import { snapshot } from '../projector/support/history.ts';
import { controlledReadStore, type ControlledReadStore } from './controlled-read-store.ts';

export const silentLogger = pino({ level: 'silent' });

export interface SimulatedWorker {
  control: ControlledReadStore;
  queue: JobQueue;
  projector: Projector;
  close(): Promise<void>;
}

export interface WorkerSettings {
  projections?: readonly Projection[];
  batchSize?: number;
  policy?: RetryPolicy;
  pollIntervalMs?: number;
  /** Anything else the runner takes (leases, clocks), passed as it is. */
  extra?: Partial<ProjectorOptions>;
}

export function simulatedWorker(eventStore: EventStore, shared: ReadStore, settings: WorkerSettings = {}): SimulatedWorker {
  const control = controlledReadStore(shared);
  const queue = createInlineJobQueue(settings.policy ?? { attempts: 3, backoffMs: 5 });
  const projector = createProjector({
    eventStore, readStore: control.store, queue, logger: silentLogger,
    ...(settings.projections ? { projections: settings.projections } : {}),
    batchSize: settings.batchSize ?? 1,
    pollIntervalMs: settings.pollIntervalMs ?? 60_000,
    ...settings.extra,
  });
  return {
    control, queue, projector,
    async close() {
      control.heal();
      await projector.stop().catch(() => undefined);
      await queue.close();
    },
  };
}

/** Fields a store keeps for its own bookkeeping, which a clean rebuild need not have alike. */
const BOOKKEEPING = new Set(['updated_at']);

/**
 * What readers see: every projected document, and each checkpoint's position and status, without bookkeeping
 * fields.
 */
export async function readersView(store: ReadStore): Promise<Record<string, StoredDoc[]>> {
  const view = await snapshot(store);
  const checkpoints = await store.find<CheckpointDoc>('checkpoints', {}, { sort: { _id: 1 } });
  view['checkpoints'] = checkpoints.map((c) => ({ _id: c._id, position: c.position, status: c.status }) as StoredDoc);
  for (const docs of Object.values(view)) {
    for (const doc of docs) for (const field of Object.keys(doc)) if (BOOKKEEPING.has(field)) delete (doc as unknown as Record<string, unknown>)[field];
  }
  return view;
}

/** What a clean rebuild of the whole history into an empty store gives readers. */
export async function cleanRebuildView(eventStore: EventStore, projections: readonly Projection[] = PROJECTIONS): Promise<Record<string, StoredDoc[]>> {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh, projections });
  return readersView(fresh);
}
