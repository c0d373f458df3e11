/**
 * A stand-in for the parts of `EventStoreDBClient` the adapter uses, shaped by the client's own types: an
 * in-memory log read the way the server reads it (`$all` from a position inclusive, streams by revision,
 * `StreamNotFoundError` for a missing stream), reads that count their `cancel()` calls, and subscriptions the test
 * drives (confirm, deliver, fail).
 */
import { PassThrough, Readable } from 'node:stream';
import {
  BACKWARDS, END, START, StreamNotFoundError, type AllStreamResolvedEvent, type AllStreamSubscription, type AppendResult,
  type EventType, type Position, type ReadAllOptions, type ReadStreamOptions, type ResolvedEvent, type StreamingRead,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';
import type { EventStoreDbClient } from '../../../../shared/adapters/eventstoredb/client.ts';
import type { NewEvent } from '../../../../shared/ports/event-store.ts';

/** ulong.MaxValue, what servers before 22.6 put in `commit_position` on stream reads. */
export const OLD_SERVER_NO_POSITION = 2n ** 64n - 1n;

export interface LoggedRecord { streamId: string; revision: bigint; id: string; type: string; data: unknown; metadata: unknown; position: Position }

export class FakeSubscription extends PassThrough {
  unsubscribed = false;
  constructor(readonly fromPosition: SubscribeToAllOptions['fromPosition']) {
    super({ objectMode: true });
  }

  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
    this.end();
  }

  confirm(): void {
    this.emit('confirmation');
  }

  deliver(record: LoggedRecord): void {
    this.write({ event: { ...record, isJson: true, created: new Date(0) } });
  }

  fail(message: string): void {
    this.emit('error', new Error(message));
  }
}

export class FakeEventStoreDbClient implements EventStoreDbClient {
  readonly log: LoggedRecord[] = [];
  readonly subscriptions: FakeSubscription[] = [];
  /** Number of reads opened and of `cancel()` calls made on them. */
  readsOpened = 0;
  cancels = 0;
  appendCalls = 0;
  /** Answer stream reads as servers before 22.6 do. */
  oldServer = false;
  /** Make `cancel()` reject, as it does when the read's call never started. */
  cancelFails = false;
  private nextPosition = 1_000n;

  /** Stores an event as the server would, at a sparse position (log offsets, not counts). */
  record(streamId: string, event: Pick<NewEvent, 'id' | 'type' | 'data' | 'metadata'>): LoggedRecord {
    const revision = BigInt(this.log.filter((r) => r.streamId === streamId).length);
    const record = { streamId, revision, ...event, position: { commit: this.nextPosition, prepare: this.nextPosition } };
    this.nextPosition += 731n;
    this.log.push(record);
    return record;
  }

  appendToStream = async (): Promise<AppendResult> => {
    this.appendCalls += 1;
    throw new Error('the fake does not append: the tests under it never reach the server');
  };

  readAll = (options?: ReadAllOptions): StreamingRead<AllStreamResolvedEvent> => {
    const backwards = options?.direction === BACKWARDS;
    const from = options?.fromPosition ?? (backwards ? END : START);
    let records = this.log.filter((r) => from === START || from === END || r.position.commit >= from.commit);
    if (backwards) records = [...records].reverse();
    return this.read(records.map((record) => ({ event: { ...record, isJson: true as const, created: new Date(0) } }) as AllStreamResolvedEvent));
  };

  readStream = <E extends EventType = EventType>(streamId: string, options?: ReadStreamOptions): StreamingRead<ResolvedEvent<E>> => {
    let records = this.log.filter((r) => r.streamId === streamId);
    if (records.length === 0) return this.failingRead(new StreamNotFoundError(undefined, streamId));
    if (options?.direction === BACKWARDS) records = [...records].reverse();
    const from = options?.fromRevision;
    if (typeof from === 'bigint') records = records.filter((r) => r.revision >= from);
    records = records.slice(0, Number(options?.maxCount ?? records.length));
    // The client fills `position` even when the server sends none: old servers' answer becomes ulong.MaxValue.
    const positioned = (r: LoggedRecord) => (this.oldServer ? { ...r, position: { commit: OLD_SERVER_NO_POSITION, prepare: OLD_SERVER_NO_POSITION } } : r);
    return this.read(records.map((r) => ({ event: { ...positioned(r), isJson: true, created: new Date(0) } }) as ResolvedEvent<E>));
  };

  subscribeToAll = (options?: SubscribeToAllOptions): AllStreamSubscription => {
    const subscription = new FakeSubscription(options?.fromPosition);
    this.subscriptions.push(subscription);
    return subscription;
  };

  dispose = async (): Promise<void> => undefined;

  private read<E>(items: E[]): StreamingRead<E> {
    return this.counted(Readable.from(items));
  }

  private failingRead<E>(error: Error): StreamingRead<E> {
    return this.counted(new Readable({ objectMode: true, read() { this.destroy(error); } }));
  }

  private counted<E>(stream: Readable): StreamingRead<E> {
    this.readsOpened += 1;
    return Object.assign(stream, {
      cancel: async () => {
        this.cancels += 1;
        if (this.cancelFails) throw new Error('14 UNAVAILABLE: no connection established');
      },
    });
  }
}
