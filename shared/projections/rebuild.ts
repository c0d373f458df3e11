/**
 * Rebuild: projects the whole history into fresh generations of the read collections, which no reader sees,
 * then switches every rebuilt collection at once and sets its checkpoint. Readers keep the old generation
 * meanwhile and never see a half-built model. The history is read once for all the projections rebuilt.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EventStore } from '../ports/event-store.ts';
import type { ReadStore, RebuildTarget } from '../ports/read-store.ts';
import { projectBatch } from './batch.ts';
import { checkpointDoc, resetOps } from './checkpoints.ts';
import type { Projection } from './projection.ts';
import { PROJECTIONS } from './index.ts';

/**
 * How far a rebuild has gone. Positions are where in the history it stands, not event counts (EventStoreDB
 * positions are log offsets): `events` counts what was projected.
 */
export interface RebuildProgress {
  /** Position reached. */
  position: number;
  /** Head position when the rebuild started (or reached since, when the history grew). */
  head: number;
  /** Events projected so far. */
  events: number;
  /** Events projected per second so far. */
  eventsPerSecond: number;
}

export interface RebuildOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Defaults to every projection. */
  projections?: readonly Projection[];
  /** Events per batch; default 5,000. */
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Called once every generation is complete, just before the switch (lets a test look at the old one). */
  beforeSwitch?: () => Promise<void> | void;
}

export interface RebuildResult {
  projections: string[];
  /** Position the rebuilt collections reflect, now their checkpoint. */
  position: number;
  events: number;
  seconds: number;
}

export async function rebuild(options: RebuildOptions): Promise<RebuildResult> {
  const { eventStore, readStore, onProgress } = options;
  const projections = options.projections ?? PROJECTIONS;
  const batchSize = options.batchSize ?? 5_000;
  const targets: RebuildTarget[] = [];
  try {
    for (const projection of projections) targets.push(await readStore.beginRebuild(projection.collection));
    const started = performance.now();
    let head = await eventStore.headPosition();
    let position = 0;
    let events = 0;
    for (;;) {
      const batch = await eventStore.readAll({ after: position, limit: batchSize });
      const last = batch.at(-1);
      if (!last) break;
      for (const [index, projection] of projections.entries()) {
        const target = targets[index]!;
        const ops = await projectBatch(projection, batch, target);
        if (ops.length > 0) await target.write(ops);
      }
      position = last.position;
      events += batch.length;
      head = Math.max(head, position);
      onProgress?.({ position, head, events, eventsPerSecond: events / Math.max((performance.now() - started) / 1000, 1e-3) });
      // A turn of the event loop per batch: a rebuild inside a serving process (the embedded audit) must not
      // starve its requests; a store read that resolves at once would otherwise never let them in.
      await yieldToEventLoop();
    }
    await options.beforeSwitch?.();
    for (const target of targets) await target.switchTo();
    await readStore.write('checkpoints', projections.flatMap((projection) => resetOps(checkpointDoc(projection.name, position))));
    return { projections: projections.map((p) => p.name), position, events, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    await Promise.allSettled(targets.map((target) => target.abandon()));
    throw error;
  }
}
