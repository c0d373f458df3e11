/**
 * The event store on EventStoreDB (`@eventstore/db-client`), kept thin: EventStoreDB already gives atomic appends,
 * expected-revision checks and idempotency on event ids; this adapter maps names and errors, and validates events
 * both ways exactly as the SQLite store does. Positions are `$all` commit positions as JS numbers.
 */
import {
  BACKWARDS, END, EventStoreDBClient, FORWARDS, jsonEvent, NO_STREAM, START, StreamNotFoundError, streamNameFilter,
  WrongExpectedVersionError, type AllStreamResolvedEvent, type AppendExpectedRevision, type JSONType,
  type ReadPosition, type RecordedEvent as EsdbRecordedEvent, type StreamingRead,
} from '@eventstore/db-client';
import {
  ConcurrencyError, STREAM_PREFIXES, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent,
  type ReadAllOptions, type ReadStreamOptions, type RecordedEvent,
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

/**
 * Feeds each read event to `visit` until it answers true, then cancels the server-side read: leaving the loop
 * alone would only detach the client's stream and leave the gRPC call running.
 */
async function stopEarly(read: StreamingRead<AllStreamResolvedEvent>, visit: (event: AllStreamResolvedEvent) => boolean): Promise<void> {
  for await (const resolved of read) {
    if (visit(resolved)) {
      await read.cancel();
      return;
    }
  }
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

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    const fromRevision = options && options.after >= 0 ? BigInt(options.after + 1) : START;
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision, direction: FORWARDS })) {
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
    const read = this.client.readAll({ fromPosition, direction: FORWARDS });
    await stopEarly(read, (resolved) => {
      const event = resolved.event;
      if (!event || !isOurs(event.streamId)) return false;
      const position = Number(event.position.commit);
      if (position > after) events.push(decode(event, position));
      return events.length >= limit;
    });
    return events;
  }

  async headPosition(): Promise<number> {
    let head = 0;
    await stopEarly(this.client.readAll({ fromPosition: END, direction: BACKWARDS }), (resolved) => {
      if (!resolved.event || !isOurs(resolved.event.streamId)) return false;
      head = Number(resolved.event.position.commit);
      return true;
    });
    return head;
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
