/**
 * Reads the SQLite event store's rows as they are stored, hashes included, straight from the file: the event store
 * port hides the hashes (and upcasts data), which is right for everyone but the auditor. Opens the file read-only,
 * so it can run beside a live server; one statement iterates one consistent snapshot (WAL).
 */
import Database from 'better-sqlite3';
import { GENESIS, type AuditRecord } from './audit-record.ts';

export interface SqliteAuditHistory {
  /** Number of events after `after` (0: the whole history), for progress. */
  count(after: number): number;
  /** The stored events after `after`, in position order. */
  records(after: number): IterableIterator<AuditRecord>;
  /** The stored stream hash of the revision before `revision` of `stream` (genesis for revision 0 or a gap). */
  previousStreamHash(stream: string, revision: number): Buffer;
  /** The stored chain hash of the last event at or before `position` (genesis when there is none). */
  chainHashAt(position: number): Buffer;
  close(): void;
}

const COLUMNS = 'position, stream, revision, id, type, data, metadata, stream_hash, chain_hash';

export function openSqliteAuditHistory(file: string): SqliteAuditHistory {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const countAfter = db.prepare<[number]>('SELECT count(*) FROM events WHERE position > ?').pluck();
  const rowsAfter = db.prepare<[number]>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position`);
  const streamHashOf = db.prepare<[string, number]>('SELECT stream_hash FROM events WHERE stream = ? AND revision = ?').pluck();
  const chainAt = db.prepare<[number]>('SELECT chain_hash FROM events WHERE position <= ? ORDER BY position DESC LIMIT 1').pluck();
  return {
    count: (after) => countAfter.get(after) as number,
    records: (after) => rowsAfter.iterate(after) as IterableIterator<AuditRecord>,
    previousStreamHash: (stream, revision) =>
      revision === 0 ? GENESIS : (streamHashOf.get(stream, revision - 1) as Buffer | undefined) ?? GENESIS,
    chainHashAt: (position) => (chainAt.get(position) as Buffer | undefined) ?? GENESIS,
    close: () => db.close(),
  };
}
