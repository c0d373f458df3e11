/**
 * For tests of histories this version wrote itself: every event reads, so an unreadable one is a failure, named.
 */
import { isUnreadable, type RecordedEvent, type StoredEvent } from '../../shared/ports/event-store.ts';

export function readable(events: readonly StoredEvent[]): RecordedEvent[] {
  return events.map((event) => {
    if (isUnreadable(event)) throw new Error(`${event.type} at position ${event.position} does not read: ${event.unreadable}`);
    return event;
  });
}
