/**
 * Whether the history still holds what a checkpoint counts as applied (docs/api.md, "Stores put back from a copy").
 * An event store put back to an older copy under read models that stayed hands out the positions the checkpoints
 * count again: a projector reading after its checkpoint never applies the events there, and confirming its head would
 * tell every API process that the read model holds them. Whether the history is shorter than the checkpoint (its
 * last event before it) or grew past it again, the event at the checkpoint's position is not the one applied there.
 * On EventStoreDB a rewritten log may have no record starting where the read starts: the server refuses it, and the
 * run is retried as an engine error, confirming nothing (docs/api.md).
 */
import type { EventStore, StoredEvent } from '../../ports/event-store.ts';
import type { AppliedEvent, CheckpointState } from './control-docs.ts';

/** What a projection parks on: the history no longer holds the events its checkpoint counts. */
export interface HistoryLost {
  head: number;
  reason: string;
}

const WAY_BACK = 'rebuild the read models from it (`watchcat rebuild`)';

/**
 * Checks the checkpoint against the history. With the event it applied last recorded, one read of one event finds
 * it again (the head is read only when it is not found); without one (position 0, an earlier release's checkpoint),
 * only `readHead` checks anything: that the head does not stand before the checkpoint.
 */
export async function historyLost(
  eventStore: Pick<EventStore, 'readAll' | 'headPosition'>, checkpoint: Pick<CheckpointState, 'position' | 'applied'>, readHead: boolean,
): Promise<HistoryLost | undefined> {
  const { position, applied } = checkpoint;
  if (!applied && !readHead) return undefined;
  const [found] = applied ? await eventStore.readAll({ after: applied.after, limit: 1 }) : [];
  if (applied && found?.position === position && found.id === applied.id) return undefined;
  const head = await eventStore.headPosition();
  if (head < position) {
    return {
      head, reason: `the event store's last event is at position ${head}, before this projection's checkpoint at ${position}: `
        + `the history was put back to an older copy; ${WAY_BACK}`,
    };
  }
  if (!applied) return undefined;
  const there = found?.position === position ? `event ${found.id}` : 'no event';
  return {
    head, reason: `the event store holds ${there} at position ${position}, where this projection's checkpoint applied event ${applied.id}: `
      + `the history was rewritten under the read models (put back to an older copy, then appended to); ${WAY_BACK}`,
  };
}

/**
 * What a checkpoint at the last of `events` records as applied there: its id, and the position before it (of the
 * event before it in the batch, or `before`, where the batch was read after), where a read returns it first.
 */
export function appliedOf(events: readonly StoredEvent[], before: number): AppliedEvent {
  return { id: events.at(-1)!.id, after: events.at(-2)?.position ?? before };
}
