/**
 * The two shapes of `watchcat history`: a table for people, one JSON object per line for tools. An event this
 * version cannot read is listed with what does not decode instead of its data.
 */
import { isUnreadable, type StoredEvent } from '../../shared/ports/event-store.ts';

/** The event's scalar fields as `key=value`; nested texts and lists are left to `--json`. */
function summary(data: object): string {
  return Object.entries(data)
    .filter(([, value]) => value === null || typeof value !== 'object')
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(' ');
}

const COLUMNS = ['POSITION', 'OCCURRED AT', 'STREAM', 'REV', 'TYPE', 'ACTOR', 'CORRELATION', 'DATA'] as const;

export function tableRows(events: StoredEvent[]): string[] {
  const rows = events.map((e) => [
    String(e.position), e.metadata?.occurred_at ?? '?', e.stream, String(e.revision), e.type, e.metadata?.actor ?? '?',
    e.metadata?.correlation_id ?? '?', isUnreadable(e) ? `UNREADABLE: ${e.unreadable}` : summary(e.data),
  ]);
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(COLUMNS), ...rows.map(line)];
}

export function jsonLine(event: StoredEvent): string {
  const { position, stream, revision, id, type, metadata } = event;
  const content = isUnreadable(event) ? { unreadable: event.unreadable } : { data: event.data };
  return JSON.stringify({ position, stream, revision, id, type, ...content, metadata });
}
