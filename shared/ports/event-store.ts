/**
 * The event store port. Two adapters implement it with one behaviour (SQLite file, EventStoreDB); the contract
 * suite in test/contract proves it.
 */
import type { DomainEvent } from '../events/index.ts';
import type { EventMetadata } from '../events/metadata.ts';

/** Where an append expects the stream to be: not yet existing, or at exactly this revision. */
export type ExactRevision = 'no_stream' | number;

/** Where an append expects the stream to be: anywhere, or exactly somewhere. */
export type ExpectedRevision = 'any' | ExactRevision;

/** An event to append. `id` is a UUID; what a repeated id does depends on the engine (see `EventStore.append`). */
export type NewEvent = DomainEvent & { id: string; metadata: EventMetadata };

/** An event as stored, upcast to the current schema, with the fields this version does not know dropped. */
export type RecordedEvent = DomainEvent & {
  id: string;
  stream: string;
  /** 0-based index of the event in its stream. */
  revision: number;
  /**
   * Global order over the whole history; strictly increasing, not necessarily contiguous (EventStoreDB positions
   * are log offsets): a difference of positions is not a number of events.
   */
  position: number;
  metadata: EventMetadata;
};

/**
 * A stored event that this version cannot read: of a type it does not know (a newer writer's), or whose JSON, data
 * or metadata do not decode to the current shape (a newer writer's breaking change, a damaged record). It is handed
 * out in its place rather than failing the read, and each reader decides what it means: a projection that handles
 * its type parks on it, the others skip it, and a command refuses to decide on a stream that holds it.
 */
export interface UnreadableEvent {
  type: string;
  id: string;
  stream: string;
  revision: number;
  position: number;
  /** Its metadata when that much decodes, else null. */
  metadata: EventMetadata | null;
  /** What does not decode, for people: `unknown event type`, or the schema's complaint. */
  unreadable: string;
}

/** An event's texts exactly as the store wrote them, before any decoding: what audit exports and the transparency log are made of. */
export interface StoredEventText {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  /** The JSON text as stored. */
  data: string;
  /** The JSON text as stored. */
  metadata: string;
}

/** What a read gives for each stored event. */
export type StoredEvent = RecordedEvent | UnreadableEvent;

const STORED_TEXTS = Symbol('stored texts');

/**
 * Hands an event read from an engine that keeps the texts it was given (SQLite) its stored `data` and `metadata`
 * texts, out of sight (a non-enumerable symbol: copies, comparisons and JSON leave them out): the transparency log's
 * projection hashes those bytes, not a re-serialisation of what this version decoded.
 */
export function withStoredTexts<E extends StoredEvent>(event: E, data: string, metadata: string): E {
  Object.defineProperty(event, STORED_TEXTS, { value: { data, metadata } });
  return event;
}

/** The stored texts an adapter handed the event (see `withStoredTexts`), or undefined. */
export function storedTextsOf(event: { type: string }): { data: string; metadata: string } | undefined {
  return (event as { [STORED_TEXTS]?: { data: string; metadata: string } })[STORED_TEXTS];
}

export function isUnreadable(event: { type: string }): event is UnreadableEvent {
  return 'unreadable' in event;
}

export interface AppendResult {
  /** Revision of the last event of the stream after the append. */
  nextRevision: number;
  /** Global position of the last appended event (the caller can wait for read models to reach it). */
  position: number;
}

/** Thrown when the stream is not at the expected revision. Nothing was written. */
export class ConcurrencyError extends Error {
  constructor(readonly stream: string, readonly expected: ExpectedRevision, readonly actual: number | 'no_stream') {
    super(`stream ${stream} is at revision ${actual}, expected ${expected}`);
    this.name = 'ConcurrencyError';
  }
}

export interface ReadAllOptions {
  /** Read events strictly after this position; 0 reads from the start. */
  after: number;
  /** Largest number of events to return. */
  limit: number;
}

export interface ReadStreamOptions {
  /** Read only the events whose revision is strictly greater than this one (a reader that already holds the rest). */
  after: number;
}

export interface EventStore {
  /**
   * Appends atomically: all events or none. Rejects with `InvalidEventError` when an event (data or metadata)
   * breaks its schema, and with `ConcurrencyError` when `expected` does not hold; either way nothing is written.
   * Appending no events writes nothing and answers the stream's revision (-1 when it does not exist) and the
   * head, once `expected` holds.
   *
   * Repeated event ids. What holds on both engines: appending again, with the same *exact* expectation, the
   * events an earlier append wrote right after that revision, same ids in the same order, writes nothing and
   * answers the original result. Nothing more is promised on both:
   * - SQLite checks ids against every stored event: any repeated batch is recognised whatever `expected` says;
   *   an id stored in another stream, or a batch repeating only some ids, is refused with `EventIdConflictError`.
   * - EventStoreDB, with `any`, checks ids only against a bounded in-memory cache of recent writes: an older
   *   batch is written again. It does not look at other streams (the ids are written a second time there), and
   *   a partly repeated batch comes back as a `ConcurrencyError` rather than an id conflict.
   * The command handlers therefore append at an exact revision with fresh ids on every attempt, and never count
   * on ids to make a retry harmless: a refused attempt is decided again against the stream as it now is.
   */
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Every event of one stream in revision order, or with `after` only the later ones; empty when the stream does
   * not exist or has nothing after that revision.
   */
  readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** A batch of the whole history in global order. */
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  /**
   * A batch of the whole history in global order as stored texts, undecoded (an event this version cannot read
   * included). Only where the engine keeps the texts it was given (SQLite); elsewhere readers serialise the
   * decoded events with `JSON.stringify`, as the SQLite store writes them.
   */
  readStoredTexts?(options: ReadAllOptions): Promise<StoredEventText[]>;
  /** Position of the newest event, 0 when the store is empty. */
  headPosition(): Promise<number>;
  /**
   * Number of events after `position`, where the engine counts them cheaply (SQLite). Absent on EventStoreDB:
   * its positions are log offsets, so no difference of positions is a number of events.
   */
  countAfter?(position: number): Promise<number>;
  /**
   * Calls `listener` (without arguments) soon after new events are stored, by this process or another one.
   * It only signals: readers then read from their own checkpoint, so a signal with nothing new behind it (the
   * EventStoreDB feed gives one each time its subscription goes live) costs one empty read. Returns a function
   * that stops the feed.
   */
  onAppended(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Streams per aggregate, named as ARCHITECTURE.md says. */
export const streams = {
  collection: (code: string) => `collection-${code}`,
  watch: (reference: string) => `watch-${reference}`,
  configurator: (collection: string) => `configurator-${collection}`,
  serial: (serial: string) => `serial-${serial}`,
} as const;

const SERIAL_STREAM = streams.serial('');

/** The serial whose stream `stream` is (`streams.serial`), or undefined for another aggregate's stream. */
export const serialOfStream = (stream: string): string | undefined =>
  (stream.startsWith(SERIAL_STREAM) ? stream.slice(SERIAL_STREAM.length) : undefined);

/** Prefixes of this service's streams (the EventStoreDB feed filters `$all` to them). */
export const STREAM_PREFIXES = ['collection-', 'watch-', 'configurator-', 'serial-'] as const;
