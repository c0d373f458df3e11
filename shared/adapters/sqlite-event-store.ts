/**
 * The embedded event store: one SQLite file (better-sqlite3), safe to share with another process such as the
 * `watchcat` CLI. Every append is one IMMEDIATE transaction, so the revision check, the audit hashes and the
 * inserts see and write one consistent state even when another process writes to the same file.
 */
import type Database from 'better-sqlite3';
import {
  ConcurrencyError, withStoredTexts, type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type ReadAllOptions,
  type ReadStreamOptions, type StoredEvent, type StoredEventText,
} from '../ports/event-store.ts';
import { assertValidBatch, EventIdConflictError, expectationHolds, parseStoredJson, toStoredEvent } from './event-records.ts';
import { AppendFeed } from './sqlite/append-feed.ts';
import { chainHash, GENESIS_HASH, streamHash } from './sqlite/event-hash.ts';
import { openEventDatabase } from './sqlite/event-database.ts';

interface SqliteEventStoreOptions {
  /** How often to look for appends made by other processes, in milliseconds (default 5). */
  pollMs?: number;
}

/** `position, stream, revision, id, type, data, metadata`, as `.raw()` statements return them. */
type EventRow = [number, string, number, string, string, string, string];
type StoredIdRow = [stream: string, revision: number, position: number];
interface SerializedEvent { id: string; type: string; data: string; metadata: string }
/** `written` is false when the append was a retry of one already stored. */
type WriteOutcome = AppendResult & { written: boolean };

const SELECT_EVENT = 'SELECT position, stream, revision, id, type, data, metadata FROM events';

export function openSqliteEventStore(file: string, options: SqliteEventStoreOptions = {}): EventStore {
  return new SqliteEventStore(openEventDatabase(file), options.pollMs ?? 5);
}

class SqliteEventStore implements EventStore {
  private readonly feed: AppendFeed;
  private readonly insert: Database.Statement;
  private readonly streamHead: Database.Statement<[string]>;
  private readonly chainHead: Database.Statement<[]>;
  private readonly storedId: Database.Statement<[string]>;
  private readonly selectStream: Database.Statement<[string, number]>;
  private readonly selectAfter: Database.Statement<[number, number]>;
  private readonly selectHead: Database.Statement<[]>;
  private readonly countAfterPosition: Database.Statement<[number]>;
  private readonly writeAppend: Database.Transaction<(stream: string, events: SerializedEvent[], expected: ExpectedRevision) => WriteOutcome>;

  constructor(private readonly db: Database.Database, pollMs: number) {
    this.insert = db.prepare(
      'INSERT INTO events (stream, revision, id, type, data, metadata, stream_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.streamHead = db.prepare<[string]>('SELECT revision, stream_hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').raw();
    this.chainHead = db.prepare<[]>('SELECT chain_hash FROM events ORDER BY position DESC LIMIT 1').pluck();
    this.storedId = db.prepare<[string]>('SELECT stream, revision, position FROM events WHERE id = ?').raw();
    this.selectStream = db.prepare<[string, number]>(`${SELECT_EVENT} WHERE stream = ? AND revision > ? ORDER BY revision`).raw();
    this.selectAfter = db.prepare<[number, number]>(`${SELECT_EVENT} WHERE position > ? ORDER BY position LIMIT ?`).raw();
    this.selectHead = db.prepare<[]>('SELECT position FROM events ORDER BY position DESC LIMIT 1').pluck();
    this.countAfterPosition = db.prepare<[number]>('SELECT count(*) FROM events WHERE position > ?').pluck();
    const dataVersion = db.prepare<[]>('PRAGMA data_version').pluck();
    this.feed = new AppendFeed(() => dataVersion.get() as number, pollMs);
    this.writeAppend = db.transaction((stream, events, expected) => this.appendInTransaction(stream, events, expected));
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    assertValidBatch(stream, events);
    const serialized = events.map((event) => ({
      id: event.id, type: event.type, data: JSON.stringify(event.data), metadata: JSON.stringify(event.metadata),
    }));
    const result = this.writeAppend.immediate(stream, serialized, expected);
    if (serialized.length > 0 && result.written) this.feed.notify();
    return { nextRevision: result.nextRevision, position: result.position };
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return decodeRows(this.selectStream.all(stream, options?.after ?? -1) as EventRow[]);
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
    return decodeRows(this.selectAfter.all(after, limit) as EventRow[]);
  }

  async readStoredTexts({ after, limit }: ReadAllOptions): Promise<StoredEventText[]> {
    return (this.selectAfter.all(after, limit) as EventRow[]).map(([position, stream, revision, id, type, data, metadata]) =>
      ({ position, stream, revision, id, type, data, metadata }));
  }

  async headPosition(): Promise<number> {
    return (this.selectHead.get() as number | undefined) ?? 0;
  }

  async countAfter(position: number): Promise<number> {
    return this.countAfterPosition.get(position) as number;
  }

  onAppended(listener: () => void): () => void {
    return this.feed.subscribe(listener);
  }

  async close(): Promise<void> {
    this.feed.close();
    this.db.close();
  }

  /** Runs inside the IMMEDIATE transaction: nothing here may await. */
  private appendInTransaction(stream: string, events: SerializedEvent[], expected: ExpectedRevision): WriteOutcome {
    const first = events[0];
    const retried = first ? this.storedId.get(first.id) as StoredIdRow | undefined : undefined;
    if (retried) return { ...this.originalResult(stream, events), written: false };

    const head = this.streamHead.get(stream) as [number, Buffer] | undefined;
    const current = head ? head[0] : 'no_stream';
    if (!expectationHolds(expected, current)) throw new ConcurrencyError(stream, expected, current);

    let revision = head ? head[0] : -1;
    let previousStreamHash: Buffer = head ? head[1] : GENESIS_HASH;
    let previousChainHash = (this.chainHead.get() as Buffer | undefined) ?? GENESIS_HASH;
    let position = 0;
    for (const event of events) {
      revision += 1;
      previousStreamHash = streamHash(event.type, event.data, event.metadata, previousStreamHash);
      previousChainHash = chainHash(previousStreamHash, previousChainHash);
      try {
        position = Number(this.insert.run(stream, revision, event.id, event.type, event.data, event.metadata, previousStreamHash, previousChainHash).lastInsertRowid);
      } catch (error) {
        if (isUniqueIdViolation(error)) throw new EventIdConflictError(stream, `id ${event.id} is already stored`);
        throw error;
      }
    }
    if (events.length === 0) position = (this.selectHead.get() as number | undefined) ?? 0;
    return { nextRevision: revision, position, written: true };
  }

  /** A retry must match an earlier append exactly: same stream, same ids, same order, nothing in between. */
  private originalResult(stream: string, events: SerializedEvent[]): AppendResult {
    let expectedRevision: number | undefined;
    let result: AppendResult = { nextRevision: -1, position: 0 };
    for (const event of events) {
      const row = this.storedId.get(event.id) as StoredIdRow | undefined;
      if (!row) throw new EventIdConflictError(stream, `only some of the ids are stored (${event.id} is not)`);
      const [storedStream, revision, position] = row;
      if (storedStream !== stream) throw new EventIdConflictError(stream, `id ${event.id} is stored in ${storedStream}`);
      if (expectedRevision !== undefined && revision !== expectedRevision) {
        throw new EventIdConflictError(stream, `id ${event.id} is stored out of order`);
      }
      expectedRevision = revision + 1;
      result = { nextRevision: revision, position };
    }
    return result;
  }
}

function isUniqueIdViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String((error as Error).message).includes('events.id');
}

function decodeRows(rows: EventRow[]): StoredEvent[] {
  const events = new Array<StoredEvent>(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const [position, stream, revision, id, type, data, metadata] = rows[i]!;
    events[i] = withStoredTexts(toStoredEvent(position, stream, revision, id, type, parseStoredJson(data), parseStoredJson(metadata)), data, metadata);
  }
  return events;
}
