/**
 * Which history an event store holds, in a form another process can check against its own store: the position and
 * id of its newest event. Event ids are UUIDs, so two stores that hold the same event at that position hold the same
 * history up to it (the very same file, or a copy). `watchcat audit projections` sends its mark to the server it asks,
 * so that a server serving another data directory refuses instead of auditing a history nobody named.
 */
import type { EventStore } from '../../shared/ports/event-store.ts';

interface HistoryMark {
  position: number;
  id: string;
}

/** The mark of the store's newest event; undefined while the store is empty. */
export async function historyMark(store: EventStore): Promise<HistoryMark | undefined> {
  const head = await store.headPosition();
  if (head === 0) return undefined;
  const [newest] = await store.readAll({ after: head - 1, limit: 1 });
  return newest ? { position: newest.position, id: newest.id } : undefined;
}

/** Whether `store` holds the event the mark names, at the position it names. */
export async function holdsMark(store: EventStore, mark: HistoryMark): Promise<boolean> {
  // No event is at position 0, the head of an empty store; nor can the read below ask for position -1, which
  // EventStoreDB's client cannot encode (its positions are unsigned): a mark at 0 is simply not held.
  if (mark.position === 0) return false;
  const [event] = await store.readAll({ after: mark.position - 1, limit: 1 });
  return event?.position === mark.position && event.id === mark.id;
}

/** The query parameter that carries a mark. */
export const HISTORY_PARAMETER = 'history';

/** `POSITION:ID`, as the mark travels in a query string. */
export function formatMark(mark: HistoryMark): string {
  return `${mark.position}:${mark.id}`;
}

export function parseMark(text: string): HistoryMark | undefined {
  const match = /^(\d{1,16}):(\S{1,100})$/.exec(text);
  return match ? { position: Number(match[1]), id: match[2]! } : undefined;
}
