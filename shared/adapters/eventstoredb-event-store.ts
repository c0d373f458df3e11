/**
 * The event store on EventStoreDB (`@eventstore/db-client`), kept thin: EventStoreDB already gives atomic appends
 * and expected-revision checks; this adapter maps names and errors, and validates events both ways exactly as the
 * SQLite store does. Positions are `$all` commit positions (log offsets, not event counts) as JS numbers.
 */
import {
  BACKWARDS, END, EventStoreDBClient, FORWARDS, jsonEvent, NO_STREAM, START, StreamNotFoundError,
  WrongExpectedVersionError, type AppendExpectedRevision, type JSONType, type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent, type StreamingRead,
} from '@eventstore/db-client';
import {
  ConcurrencyError, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type ReadAllOptions,
  type ReadStreamOptions, type StoredEvent,
} from '../ports/event-store.ts';
import { assertValidBatch, expectationHolds, toStoredEvent } from './event-records.ts';
import { DEFAULT_RESUBSCRIBE_BACKOFF, followAppends, type ResubscribeBackoff } from './eventstoredb/append-feed.ts';
import type { EventStoreDbClient } from './eventstoredb/client.ts';
import { commitPositionOf, isOurs } from './eventstoredb/records.ts';

/** Opens the store and refuses, with one clear message, a server that cannot give stream events their position. */
export async function openEventStoreDbEventStore(connectionString: string): Promise<EventStore> {
  const store = new EventStoreDbEventStore(EventStoreDBClient.connectionString(connectionString));
  try {
    await store.assertPositionsOnStreamReads();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

function toEsdbRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any' || expected === 'no_stream') return expected;
  return BigInt(expected);
}

function decode(event: EsdbRecordedEvent, position: number): StoredEvent {
  return toStoredEvent(position, event.streamId, Number(event.revision), event.id, event.type, event.data, event.metadata);
}

/**
 * Feeds each read event to `visit` until it answers true or the read ends, then cancels the read. Leaving the
 * loop (early, or because `visit` threw) only destroys the client's stream; `ReadStream` has no `_destroy`, and
 * only `cancel()` ends the gRPC call, whose deadline is infinite.
 */
async function visitRead<E>(read: StreamingRead<E>, visit: (event: E) => boolean | void): Promise<void> {
  try {
    for await (const resolved of read) {
      if (visit(resolved)) return;
    }
  } finally {
    // The read is over either way: a cancel that fails (the call never started) must not replace its outcome.
    await read.cancel().catch(() => undefined);
  }
}

export class EventStoreDbEventStore implements EventStore {
  constructor(
    private readonly client: EventStoreDbClient,
    private readonly resubscribe: ResubscribeBackoff = DEFAULT_RESUBSCRIBE_BACKOFF,
  ) {}

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    assertValidBatch(stream, events);
    // EventStoreDB answers an empty append to a missing stream with StreamNotFoundError; the port answers what
    // the SQLite store does: the stream's revision (-1 when missing) and the head, once the expectation holds.
    if (events.length === 0) return this.appendNothing(stream, expected);
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

  async readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    const fromRevision = options && options.after >= 0 ? BigInt(options.after + 1) : START;
    try {
      await visitRead(this.client.readStream(stream, { fromRevision, direction: FORWARDS }), (resolved) => {
        if (resolved.event) events.push(decode(resolved.event, commitPositionOf(resolved)));
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
    const fromPosition: ReadPosition = after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
    const events: StoredEvent[] = [];
    if (limit <= 0) return events;
    // `$all` holds system events too; they are skipped here, and reading stops as soon as the batch is full.
    await visitRead(this.client.readAll({ fromPosition, direction: FORWARDS }), (resolved) => {
      if (!resolved.event || !isOurs(resolved.event)) return false;
      const position = commitPositionOf(resolved);
      if (position > after) events.push(decode(resolved.event, position));
      return events.length >= limit;
    });
    return events;
  }

  async headPosition(): Promise<number> {
    return (await this.newestOfOurs())?.position ?? 0;
  }

  onAppended(listener: () => void): () => void {
    return followAppends(this.client, listener, this.resubscribe);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  /**
   * Reads the newest event of ours back from its stream: servers before 22.6 give such reads no position, which
   * `commitPositionOf` refuses. An empty store has nothing to check yet; its first multi-event append will.
   */
  async assertPositionsOnStreamReads(): Promise<void> {
    const newest = await this.newestOfOurs();
    if (newest) await this.positionOf(newest.stream, newest.revision);
  }

  private async newestOfOurs(): Promise<{ stream: string; revision: number; position: number } | undefined> {
    let newest: { stream: string; revision: number; position: number } | undefined;
    await visitRead(this.client.readAll({ fromPosition: END, direction: BACKWARDS }), (resolved) => {
      if (!resolved.event || !isOurs(resolved.event)) return false;
      newest = { stream: resolved.event.streamId, revision: Number(resolved.event.revision), position: commitPositionOf(resolved) };
      return true;
    });
    return newest;
  }

  /** Checks the expectation against the stream as it is, and writes nothing. */
  private async appendNothing(stream: string, expected: ExpectedRevision): Promise<AppendResult> {
    const current = await this.streamRevision(stream);
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);
    return { nextRevision: current === 'no_stream' ? -1 : current, position: await this.headPosition() };
  }

  private async streamRevision(stream: string): Promise<number | 'no_stream'> {
    const revisions: number[] = [];
    try {
      await visitRead(this.client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }), (resolved) => {
        if (resolved.event) revisions.push(Number(resolved.event.revision));
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 'no_stream';
      throw error;
    }
    return revisions[0] ?? 'no_stream';
  }

  private async positionOf(stream: string, revision: number): Promise<number> {
    let position: number | undefined;
    await visitRead(this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 }), (resolved) => {
      position = commitPositionOf(resolved);
      return true;
    });
    if (position === undefined) throw new Error(`event ${revision} of ${stream} has no position`);
    return position;
  }
}
