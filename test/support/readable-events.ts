/**
 * For tests of histories this version wrote itself: every event reads, so an unreadable one is a failure, named.
 */
import { isUnreadable, type EventStore, type RecordedEvent, type StoredEvent } from '../../shared/ports/event-store.ts';

export function readable(events: readonly StoredEvent[]): RecordedEvent[] {
  return events.map((event) => {
    if (isUnreadable(event)) throw new Error(`${event.type} at position ${event.position} does not read: ${event.unreadable}`);
    return event;
  });
}

/** The whole history, every event read (`readable`), in position order. */
export async function readableHistory(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = 0; ;) {
    const batch = readable(await store.readAll({ after, limit: 1_000 }));
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1]!.position;
  }
}
