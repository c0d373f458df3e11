/**
 * Given/then helpers for projections: number events by position, run them through the batch applier into an
 * in-memory read store, and read back every document of the projection's collection.
 */
import type { DomainEvent, EventOf, EventType } from '../../../../shared/events/index.ts';
import { createMemoryReadStore } from '../../../../shared/adapters/memory-read-store.ts';
import { FIRST_GENERATION, type ReadStore, type StoredDoc } from '../../../../shared/ports/read-store.ts';
import { projectBatch } from '../../../../shared/read-model/projections/batch.ts';
import type { PositionedEvent, PositionedRecord, Projection } from '../../../../shared/read-model/projections/projection.ts';

/** An event of any type, for the types the shared builders do not cover. */
export function event<T extends EventType>(type: T, data: EventOf<T>['data']): DomainEvent {
  return { type, data } as DomainEvent;
}

/** Positions 1, 2, 3, ... in order (or from `first`). */
export function positioned(events: readonly DomainEvent[], first = 1): PositionedEvent[] {
  return events.map((e, index) => ({ type: e.type, data: e.data, position: first + index }) as PositionedEvent);
}

/** Applies the events (and unreadable records) to the store in batches of `batchSize` (all at once by default). */
export async function project(
  store: ReadStore, projection: Projection, events: readonly PositionedRecord[], batchSize = Number.POSITIVE_INFINITY,
): Promise<void> {
  for (let start = 0; start < events.length; start += batchSize) {
    const batch = events.slice(start, start + batchSize);
    const ops = await projectBatch(projection, batch, store.generation(projection.collection, FIRST_GENERATION));
    if (ops.length > 0) await store.write(projection.collection, ops);
  }
}

/** Every document the projection holds after `events`, by `_id`. */
export async function given<D extends StoredDoc>(
  projection: Projection, events: readonly DomainEvent[], batchSize?: number,
): Promise<Map<string, D>> {
  const store = createMemoryReadStore();
  await project(store, projection, positioned(events), batchSize);
  return documents<D>(store, projection);
}

export async function documents<D extends StoredDoc>(store: ReadStore, projection: Projection): Promise<Map<string, D>> {
  const docs = await store.find<D>(projection.collection, {});
  return new Map(docs.map((doc) => [doc._id, structuredClone(doc)]));
}

/** The document or a failed expectation naming it. */
export function doc<D>(docs: Map<string, D>, id: string): D {
  const found = docs.get(id);
  if (!found) throw new Error(`no document ${id}; have ${[...docs.keys()].join(', ')}`);
  return found;
}
