/**
 * The event store on EventStoreDB (`@eventstore/db-client`), kept thin: EventStoreDB already gives atomic appends,
 * expected-revision checks and idempotency on event ids; this adapter maps names and errors, and validates events
 * both ways exactly as the SQLite store does. Positions are `$all` commit positions as JS numbers.
 */
import {
  BACKWARDS, END, EventStoreDBClient, FORWARDS, jsonEvent, NO_STREAM, START, StreamNotFoundError, streamNameFilter,
  WrongExpectedVersionError, type AllStreamRecordedEvent, type AppendExpectedRevision, type JSONType,
  type ReadPosition, type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  ConcurrencyError, STREAM_PREFIXES, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent,
  type ReadAllOptions, type RecordedEvent,
} from '../ports/event-store.ts';
import { assertValidBatch, toRecordedEvent } from './event-records.ts';

export function openEventStoreDbEventStore(connectionString: string): EventStore {
  return new EventStoreDbEventStore(EventStoreDBClient.connectionString(connectionString));
}

/** Only this service's streams; system streams (`$...`) never match a prefix. */
function isOurs(streamId: string): boolean {
  return STREAM_PREFIXES.some((prefix) => streamId.startsWith(prefix));
}

function toEsdbRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any' || expected === 'no_stream') return expected;
  return BigInt(expected);
}

function decode(event: EsdbRecordedEvent, position: number): RecordedEvent {
  return toRecordedEvent(position, event.streamId, Number(event.revision), event.id, event.type, event.data, event.metadata);
}

class EventStoreDbEventStore implements EventStore {
  constructor(private readonly client: EventStoreDBClient) {}

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    assertValidBatch(stream, events);
    const data = events.map(({ id, type, data, metadata }) =>
      jsonEvent({ id, type, data: data as JSONType, metadata: metadata as JSONType }));
    try {
      const result = await this.client.appendToStream(stream, data, { expectedRevision: toEsdbRevision(expected) });
      const nextRevision = Number(result.nextExpectedRevision);
      // With one event the answer's position is that event's; otherwise (and on an idempotent retry, which may
      // carry none) the last event is read back so the caller gets the position of the last appended event.
      const position = events.length === 1 && result.position
        ? Number(result.position.commit)
        : await this.positionOf(stream, nextRevision);
      return { nextRevision, position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? 'no_stream' : Number(error.actualVersion);
        throw new ConcurrencyError(stream, expected, actual);
      }
      throw error;
    }
  }

  async readStream(stream: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: START, direction: FORWARDS })) {
        if (resolved.event) events.push(decode(resolved.event, Number(resolved.event.position?.commit ?? resolved.commitPosition)));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const fromPosition: ReadPosition = after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
    const events: RecordedEvent[] = [];
    if (limit <= 0) return events;
    // `$all` holds system events too; they are skipped here, and reading stops as soon as the batch is full.
    for await (const resolved of this.client.readAll({ fromPosition, direction: FORWARDS })) {
      const event = resolved.event;
      if (!event || !isOurs(event.streamId)) continue;
      const position = Number(event.position.commit);
      if (position <= after) continue;
      events.push(decode(event, position));
      if (events.length >= limit) break;
    }
    return events;
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS })) {
      const event: AllStreamRecordedEvent | undefined = resolved.event;
      if (event && isOurs(event.streamId)) return Number(event.position.commit);
    }
    return 0;
  }

  onAppended(listener: () => void): () => void {
    const subscription = this.client.subscribeToAll({
      fromPosition: END,
      filter: streamNameFilter({ prefixes: [...STREAM_PREFIXES] }),
    });
    subscription.on('data', () => listener());
    // A dropped subscription only loses signals: the projector's periodic catch-up covers them.
    subscription.on('error', (error) => process.emitWarning(`EventStoreDB feed: ${error.message}`));
    return () => void subscription.unsubscribe().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private async positionOf(stream: string, revision: number): Promise<number> {
    for await (const resolved of this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 })) {
      const position = resolved.event?.position?.commit ?? resolved.commitPosition;
      if (position !== undefined) return Number(position);
    }
    throw new Error(`event ${revision} of ${stream} has no position`);
  }
}
