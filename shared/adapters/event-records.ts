/**
 * What both event store adapters do to an event on its way in and out: validate it strictly against the current
 * schemas before anything is written, and decode it tolerantly when read back (codec.ts), so callers never see a
 * shape the schemas do not describe, and an event this version cannot read comes back as such instead of failing
 * the whole read. Kept apart so the SQLite and EventStoreDB adapters cannot drift.
 */
import { assertValidEvent, decodeStoredEvent, InvalidEventError } from '../events/codec.ts';
import { entryText, MAX_ENTRY_BYTES } from '../read-model/transparency/log-entry.ts';
import type { ExpectedRevision, NewEvent, RecordedEvent, StoredEvent } from '../ports/event-store.ts';

/** An append reused event ids that are stored elsewhere, or only some of them: not a retry of one append. */
export class EventIdConflictError extends Error {
  constructor(readonly stream: string, detail: string) {
    super(`append to ${stream} reuses stored event ids: ${detail}`);
    this.name = 'EventIdConflictError';
  }
}

/**
 * Throws `InvalidEventError` for the first invalid event of the batch, or one whose transparency log entry would not
 * fit an entry bundle (an event the log could never serve); checks ids are distinct within it.
 */
export function assertValidBatch(stream: string, events: readonly NewEvent[]): void {
  const ids = new Set<string>();
  for (const event of events) {
    assertValidEvent(event.type, event.data, event.metadata);
    assertEntryFits(stream, event);
    if (ids.has(event.id)) throw new EventIdConflictError(stream, `id ${event.id} appears twice in one append`);
    ids.add(event.id);
  }
}

/** The entry as the log will hold it, with the longest revision a stream can reach (it is not known yet). */
function assertEntryFits(stream: string, { id, type, data, metadata }: NewEvent): void {
  const entry = entryText({ stream, revision: Number.MAX_SAFE_INTEGER, id, type, data: JSON.stringify(data), metadata: JSON.stringify(metadata) });
  const bytes = Buffer.byteLength(entry, 'utf8');
  if (bytes > MAX_ENTRY_BYTES) {
    throw new InvalidEventError(type, `the event takes ${bytes} bytes in the transparency log, more than an entry holds (${MAX_ENTRY_BYTES})`);
  }
}

/** Whether a stream at `current` meets the append's expectation. */
export function expectationHolds(expected: ExpectedRevision, current: number | 'no_stream'): boolean {
  return expected === 'any' || expected === current;
}

/** Decodes an event read from storage; `data` and `metadata` are already parsed (`undefined`: not JSON). */
export function toStoredEvent(
  position: number, stream: string, revision: number, id: string, type: string, data: unknown, metadata: unknown,
): StoredEvent {
  const decoded = decodeStoredEvent(type, data, metadata);
  if ('problem' in decoded) return { type, id, stream, revision, position, metadata: decoded.metadata, unreadable: decoded.problem };
  return { type, data: decoded.data, id, stream, revision, position, metadata: decoded.metadata } as RecordedEvent;
}

/** `JSON.parse` of a stored column, `undefined` when it is not JSON (no JSON text parses to `undefined`). */
export function parseStoredJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
