/**
 * The history as it stood at a point in time, seen through the event store port so that the projector's own
 * `rebuild` can project it: every event up to a position, or every event that had occurred by a timestamp
 * (`occurred_at` <= the moment, whatever its position). Read-only: appends are refused.
 */
import type { EventStore, ReadAllOptions, StoredEvent } from '../../shared/ports/event-store.ts';

/** A point in the history: a global position, or a moment (milliseconds since the epoch). */
export type Cut = { position: number } | { at: number };

interface LastIncluded {
  position: number;
  occurredAt: string;
}

interface HistoryCut extends EventStore {
  /** The last event the view has handed out so far (null before the first). */
  lastIncluded(): LastIncluded | null;
}

/** An event whose metadata cannot be read has no time: a cut by time keeps it, so that the replay names it. */
function includes(cut: Cut, event: StoredEvent): boolean {
  if ('position' in cut) return event.position <= cut.position;
  return !event.metadata || Date.parse(event.metadata.occurred_at) <= cut.at;
}

export function historyCut(store: EventStore, cut: Cut): HistoryCut {
  let last: LastIncluded | null = null;
  const keep = (events: StoredEvent[]) => {
    const kept = events.filter((event) => includes(cut, event));
    const newest = kept.findLast((event) => event.metadata !== null);
    if (newest?.metadata && (!last || newest.position > last.position)) {
      last = { position: newest.position, occurredAt: newest.metadata.occurred_at };
    }
    return kept;
  };
  return {
    lastIncluded: () => last,
    append: async () => {
      throw new Error('a point-in-time view of the history is read-only');
    },
    readStream: async (stream, options) => keep(await store.readStream(stream, options)),
    /** Reads on past events the cut leaves out, so an empty answer means the end of this history. */
    async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
      for (let from = after; ;) {
        if ('position' in cut && from >= cut.position) return [];
        const batch = await store.readAll({ after: from, limit });
        const kept = keep(batch);
        if (kept.length > 0 || batch.length === 0 || batch.length < limit) return kept;
        from = batch.at(-1)!.position;
      }
    },
    headPosition: async () => {
      const head = await store.headPosition();
      return 'position' in cut ? Math.min(head, cut.position) : head;
    },
    onAppended: () => () => {},
    close: async () => {},
  };
}
