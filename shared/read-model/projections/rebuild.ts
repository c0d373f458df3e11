/**
 * Rebuild: projects the whole history into the next generation of each rebuilt collection, beside the live one
 * that readers keep reading. Then it takes the projections' leases (fencing the live workers: their checkpoints are
 * refused from then on), brings the new generation up to the head, and switches readers to it in one step (the
 * generation pointer): the new generation is never behind the live one, so no reader's position goes back. The
 * replaced generations are dropped last. The history is read once for all the projections rebuilt.
 *
 * At its start and after its switch it drops the generations earlier rebuilds left behind (crashed before their
 * switch, or before dropping what they replaced), with their checkpoints: every one neither live nor reserved by a
 * running rebuild, which renews its reservation as it goes; a reservation this rebuild or a projector has seen
 * unchanged for its whole length, by its own clock, is taken back first (generations.ts). A rebuild that fails drops
 * its own generation and checkpoints.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EventStore } from '../../ports/event-store.ts';
import type { GenerationStore, ProjectedCollection, ReadStore } from '../../ports/read-store.ts';
import { projectBatch } from './batch.ts';
import { appliedOf } from './history-check.ts';
import { checkpointId, headConfirmation, readControlDocs, readMoment, type AppliedEvent } from './control-docs.ts';
import {
  RESERVATION_TTL_MS, dropLeftBehind, releaseReservation, renewReservation, reserveGeneration, switchGenerations, takeBackLapsed,
} from './generations.ts';
import { LeaseLostError, ProjectionLease, SYSTEM_CLOCK, type LeaseClock } from './lease.ts';
import { LeaseWatch } from './lease-watch.ts';
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

interface RebuildOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Defaults to every projection. */
  projections?: readonly Projection[];
  /**
   * Events per batch; default 500: about 40 ms of projection work per projection on this machine, the longest the
   * rebuild keeps a process's event loop to itself (5,000 held it for half a second, and the live workers' freshness
   * with it). A MongoDB store pays a round trip or two per batch for it, a small part of a batch's work.
   */
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /**
   * Called once every generation is complete, just before the projections' checks and the switch (lets a test look
   * at the old one, or append meanwhile); again if a lease was lost meanwhile and the fenced catch-up is done again.
   */
  beforeSwitch?: () => Promise<void> | void;
  /** Lease length while catching up under the leases; default 10 s. */
  leaseTtlMs?: number;
  clock?: LeaseClock;
}

interface RebuildResult {
  projections: string[];
  /** Position the rebuilt collections reflect, now their checkpoint. */
  position: number;
  events: number;
  seconds: number;
  /** The generation now live for every rebuilt collection. */
  generation: number;
}

/**
 * A projection refused its rebuilt generation (`checkBeforeSwitch`): the rebuild stopped before its switch and left
 * the live generation as it was, running (a generation that does not extend the signed log is never made live).
 */
export class RebuildRefusedError extends Error {
  constructor(readonly projection: string, readonly reason: string) {
    super(`rebuild of projection ${projection} stopped before its switch, the live generation left as it is: ${reason}`);
    this.name = 'RebuildRefusedError';
  }
}

/** Times the fenced catch-up is tried when a lease is lost before the switch. */
const FENCED_ATTEMPTS = 3;

interface Built {
  projection: Projection;
  target: GenerationStore;
}

export async function rebuild(options: RebuildOptions): Promise<RebuildResult> {
  const { eventStore, readStore, onProgress } = options;
  const projections = options.projections ?? PROJECTIONS;
  const batchSize = options.batchSize ?? 500;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const leaseOptions = { preempt: true, clock, ...(options.leaseTtlMs ? { ttlMs: options.leaseTtlMs } : {}) };
  // What this rebuild sees of the other rebuilds' reservations, on its own clock, from its start to its switch.
  const reservations = new LeaseWatch();
  const generation = await reserveGeneration(readStore);
  await takeBackLapsed(readStore, reservations, clock.monotonic());
  let renewedAt = clock.monotonic();
  /**
   * Renews the reservation a few times per its lifetime, not per batch (it is a write to the pointer), and looks at
   * the others' meanwhile.
   */
  const keepReservation = async (): Promise<void> => {
    if (clock.monotonic() - renewedAt < RESERVATION_TTL_MS / 4) return;
    renewedAt = clock.monotonic();
    await renewReservation(readStore, generation);
    await takeBackLapsed(readStore, reservations, renewedAt);
  };
  const built: Built[] = projections.map((projection) => ({ projection, target: readStore.generation(projection.collection, generation) }));
  const leases: ProjectionLease[] = [];
  const started = performance.now();
  let head = await eventStore.headPosition();
  let position = 0;
  /** The event at `position`, which the new checkpoints record (control-docs.ts, `CheckpointState.applied`). */
  let applied: AppliedEvent | undefined;
  let events = 0;

  /**
   * Projects the events after `position` into every new generation, up to `until` at least (a batch may go a little
   * past it); `beforeWrite` each bulk. Bounded by a head read beforehand, not chased: under a steady write load a
   * rebuild slower than the appends would otherwise never reach a head that keeps moving.
   */
  async function projectUpTo(until: number, beforeWrite: () => Promise<void>): Promise<void> {
    while (position < until) {
      const batch = await eventStore.readAll({ after: position, limit: batchSize });
      const last = batch.at(-1);
      if (!last) return;
      for (const [i, { projection, target }] of built.entries()) {
        const ops = await projectBatch(projection, batch, target);
        await beforeWrite();
        // Under the leases once they are taken: a rebuild that lost one adds nothing after its new owner took it.
        const lease = leases[i];
        if (ops.length > 0) await (lease ? lease.write(target, ops, { handOver: true }) : target.write(ops, { handOver: true }));
        // A turn of the event loop per projection's batch: a rebuild beside live workers or requests in one process
        // (the embedded store, the audit) must not starve them, and an in-memory store's reads and writes resolve
        // at once, so nothing else would let them in.
        await yieldToEventLoop();
      }
      await keepReservation();
      applied = appliedOf(batch, position);
      position = last.position;
      events += batch.length;
      head = Math.max(head, position);
      onProgress?.({ position, head, events, eventsPerSecond: events / Math.max((performance.now() - started) / 1000, 1e-3) });
    }
  }

  /**
   * Fences the live workers, then closes the gap they may have advanced meanwhile, under the leases: up to the head
   * as it stands once they are fenced, which is at least where the live generation stopped. What is appended after
   * that, the live workers apply to the new generation once they have their leases back. Ends still the owner of
   * every projection: a worker that took over an expired lease could have moved the live generation past this one,
   * which readers must never be switched back from.
   */
  async function catchUpFenced(owner: string): Promise<void> {
    for (const { projection } of built) {
      let lease: ProjectionLease | null = null;
      // Preempting only loses to an owner renewing at that very moment: try again.
      for (let attempt = 0; !lease && attempt < 10; attempt += 1) lease = await ProjectionLease.acquire(readStore, projection, owner, leaseOptions);
      if (!lease) throw new Error(`could not take the lease of projection ${projection.name}`);
      leases.push(lease);
      await lease.startGeneration(generation, position);
      // Taking several leases on a slow engine can outlast the first ones: each is kept as the others are taken.
      for (const held of leases) await held.ensure();
    }
    const headReadAt = readMoment(clock);
    const fencedHead = await eventStore.headPosition();
    await projectUpTo(fencedHead, async () => {
      for (const lease of leases) await lease.ensure();
    });
    // The head read once the live workers were fenced, now applied: the new generation is built and fresh as of then.
    const confirmed = headConfirmation({ head: Math.max(position, fencedHead), ...headReadAt }, clock.monotonic());
    for (const lease of leases) await lease.saveCheckpoint(position, generation, confirmed, undefined, applied);
    await options.beforeSwitch?.();
    // Last before the switch, the leases held: what was signed meanwhile (the live generation's checkpoint, fenced
    // since, bounds it) is what the new generation must extend.
    const control = await readControlDocs(readStore);
    for (const { projection, target } of built) {
      const refused = await projection.checkBeforeSwitch?.(target, control);
      for (const lease of leases) await lease.ensure();
      if (refused !== undefined) throw new RebuildRefusedError(projection.name, refused);
    }
    for (const lease of leases) await lease.ensure(true);
  }

  /** What earlier rebuilds left behind, counting out the reservations this one has seen lapse by its own clock. */
  const dropLeftBehindSoFar = async (): Promise<void> => {
    await takeBackLapsed(readStore, reservations, clock.monotonic());
    await dropLeftBehind(readStore, PROJECTIONS);
  };

  try {
    await dropLeftBehindSoFar();
    for (const { projection } of built) await readStore.resetGeneration(projection.collection, generation);
    await projectUpTo(head, async () => {});
    const owner = `rebuild:${randomUUID().slice(0, 8)}`;
    const collections = built.map(({ projection }) => projection.collection);
    let replaced: Map<ProjectedCollection, number>;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await catchUpFenced(owner);
        // Refused if a new owner took a lease since (this process paused after its last check, say).
        replaced = await switchGenerations(readStore, collections, generation, Object.fromEntries(leases.map((lease) => [lease.projection, lease.token])));
        break;
      } catch (error) {
        // A lease lost before the switch (paused past it, or a stale release an engine let through) costs this
        // phase again under new leases: the new generation is kept, only the gap is projected once more.
        if (!(error instanceof LeaseLostError) || attempt === FENCED_ATTEMPTS) throw error;
        await releaseAll(leases.splice(0));
      }
    }
    await releaseAll(leases);
    await Promise.all([...replaced].map(([collection, previous]) => readStore.dropGeneration(collection, previous)));
    // Their checkpoints go too (the control documents stay a few per projection): a late write to one is refused.
    for (const { projection } of built) await readStore.removeControl(checkpointId(projection.name, replaced.get(projection.collection)!));
    // Again, now that this rebuild has watched the others' reservations for as long as it ran.
    await dropLeftBehindSoFar();
    return { projections: projections.map((p) => p.name), position, events, seconds: (performance.now() - started) / 1000, generation };
  } catch (error) {
    await releaseAll(leases);
    // A generation that went live before the failure is refused its drop, and keeps its checkpoint.
    await Promise.allSettled(built.map(async ({ projection }) => {
      await readStore.dropGeneration(projection.collection, generation);
      await readStore.removeControl(checkpointId(projection.name, generation));
    }));
    // Left as it is if this fails: it lapses, and the next rebuild drops what remains.
    await releaseReservation(readStore, generation).catch(() => undefined);
    throw error;
  }
}

async function releaseAll(leases: readonly ProjectionLease[]): Promise<void> {
  await Promise.allSettled(leases.map((lease) => lease.release()));
}
