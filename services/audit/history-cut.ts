/**
 * The history as it stood at a point, seen through the event store port so that the projector's own `rebuild` can
 * project it. Either way it is a prefix of the history in position order: every event up to a position, or, for a
 * moment, every event before the first one (in position order) stamped after it. Stamps come from the clocks of
 * the processes that wrote them (CLI, admin API, import), which need not agree, so `occurred_at` is not an order:
 * keeping every event stamped by the moment whatever its position would keep a `WatchPublished` without the
 * `CollectionDefined` before it, a state that never was. Read-only: appends are refused.
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

/** Events read per step when a moment's end must be found ahead of the reads asked for. */
const SCAN_BATCH = 500;

/** An event whose metadata cannot be read has no time: it does not end a cut by time, so that the replay names it. */
const stampedAfter = (at: number, event: StoredEvent) => event.metadata !== null && Date.parse(event.metadata.occurred_at) > at;

export function historyCut(store: EventStore, cut: Cut): HistoryCut {
  let last: LastIncluded | null = null;
  /** The cut's last position: known from the start for a position, found by reading for a moment. */
  let end: number | null = 'position' in cut ? cut.position : null;
  /** A moment's cut: the position up to which every event is known to be in it (no later stamp seen so far). */
  let scanned = 0;

  /** The events of a batch read after `after` that are in the cut; for a moment, finds its end on the way. */
  const within = (batch: StoredEvent[], after: number): StoredEvent[] => {
    if (end === null && 'at' in cut) {
      const first = batch.findIndex((event) => stampedAfter(cut.at, event));
      if (first >= 0) end = first === 0 ? after : batch[first - 1]!.position;
      else if (batch.length > 0 && after <= scanned) scanned = Math.max(scanned, batch.at(-1)!.position);
    }
    const bound = end;
    return bound === null ? batch : batch.filter((event) => event.position <= bound);
  };

  /** Reads a moment's history in order from where it is known up to `target` (or its end, or the head). */
  const scanTo = async (target: number): Promise<void> => {
    while (end === null && scanned < target) {
      const batch = await store.readAll({ after: scanned, limit: SCAN_BATCH });
      within(batch, scanned);
      if (batch.length < SCAN_BATCH) return;
    }
  };

  const handOut = (kept: StoredEvent[]) => {
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
    readStream: async (stream, options) => {
      // Which of a stream's events are in a moment's prefix depends on every event before them.
      await scanTo(Infinity);
      return handOut(within(await store.readStream(stream, options), Infinity));
    },
    async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
      await scanTo(after);
      if (end !== null && after >= end) return [];
      return handOut(within(await store.readAll({ after, limit }), after));
    },
    headPosition: async () => {
      const head = await store.headPosition();
      return end === null ? head : Math.min(head, end);
    },
    onAppended: () => () => {},
    close: async () => {},
  };
}
