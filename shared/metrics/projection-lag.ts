/**
 * How far a projection is behind the event store, for /metrics. In time on every engine: the age of the oldest
 * event it has not applied (how long its read model has been missing something). In events only where the store
 * counts them: EventStoreDB positions are log offsets, so `head - position` is not a number of events.
 */
import type { EventStore } from '../ports/event-store.ts';

export interface ProjectionLag {
  /** Events after the projection's position; absent where the store cannot count them. */
  events?: number;
  /**
   * Age in seconds of the oldest event not yet applied; 0 when none is waiting; absent when that event's metadata
   * cannot be read (a stored event this version cannot decode), which leaves no time to count from.
   */
  seconds?: number;
}

export function projectionLag(store: EventStore, now: () => number = Date.now): (position: number) => Promise<ProjectionLag> {
  return async (position) => {
    const [next] = await store.readAll({ after: position, limit: 1 });
    const occurredAt = next ? next.metadata?.occurred_at : undefined;
    const age = next ? (occurredAt === undefined ? {} : { seconds: Math.max(0, (now() - Date.parse(occurredAt)) / 1000) }) : { seconds: 0 };
    if (!store.countAfter) return age;
    return { events: next ? await store.countAfter(position) : 0, ...age };
  };
}
