/**
 * What both event store adapters do to an event on its way in and out: validate it against the current schemas
 * before anything is written, and upcast then validate it again when read back, so callers never see a shape the
 * schemas do not describe. Kept apart so the SQLite and EventStoreDB adapters cannot drift.
 */
import { assertValidEvent, InvalidEventError, upcast } from '../events/codec.ts';
import type { EventMetadata } from '../events/metadata.ts';
import type { ExpectedRevision, NewEvent, RecordedEvent } from '../ports/event-store.ts';

/** An append reused event ids that are stored elsewhere, or only some of them: not a retry of one append. */
export class EventIdConflictError extends Error {
  constructor(readonly stream: string, detail: string) {
    super(`append to ${stream} reuses stored event ids: ${detail}`);
    this.name = 'EventIdConflictError';
  }
}

/** Throws `InvalidEventError` for the first invalid event of the batch; checks ids are distinct within it. */
export function assertValidBatch(stream: string, events: readonly NewEvent[]): void {
  const ids = new Set<string>();
  for (const event of events) {
    assertValidEvent(event.type, event.data, event.metadata);
    if (ids.has(event.id)) throw new EventIdConflictError(stream, `id ${event.id} appears twice in one append`);
    ids.add(event.id);
  }
}

/** Whether a stream at `current` meets the append's expectation. */
export function expectationHolds(expected: ExpectedRevision, current: number | 'no_stream'): boolean {
  return expected === 'any' || expected === current;
}

/** Upcasts and validates an event read from storage; `data` and `metadata` are already parsed. */
export function toRecordedEvent(
  position: number, stream: string, revision: number, id: string, type: string, data: unknown, metadata: unknown,
): RecordedEvent {
  const version = (metadata as Partial<EventMetadata> | null)?.schema_version;
  if (typeof version !== 'number') throw new InvalidEventError(type, `stored event ${id} has no schema_version`);
  const current = upcast(type, data, { schema_version: version });
  assertValidEvent(type, current, metadata);
  return { type, data: current, id, stream, revision, position, metadata } as RecordedEvent;
}

/** `JSON.parse` of a stored column, with a failure named after the event rather than a bare SyntaxError. */
export function parseStoredJson(type: string, id: string, column: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidEventError(type, `stored ${column} of event ${id} is not JSON`);
  }
}
