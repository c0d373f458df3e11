/**
 * Opens the SQLite file behind the event store: durable settings and the events table. Another process (the
 * `watchcat` CLI) may write to the same file while the server runs, hence WAL and a generous busy timeout.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** How long a writer waits for another process's transaction before giving up with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY AUTOINCREMENT,
  stream      TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  id          TEXT    NOT NULL UNIQUE,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  stream_hash BLOB    NOT NULL,
  chain_hash  BLOB    NOT NULL,
  UNIQUE (stream, revision)
) STRICT;
`;

/**
 * The history is the service's alone: a directory it creates is 0700, and the file 0600 (SQLite gives its WAL
 * and shared-memory files the database file's mode). A file of ours left readable by others is made private; one
 * of another user (the CLI run under another account) is left as its owner set it.
 */
function makePrivate(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

export function openEventDatabase(file: string): Database.Database {
  if (file !== ':memory:') makePrivate(file);
  const db = new Database(file);
  // busy_timeout first: switching to WAL itself needs a lock another process may hold.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  // FULL syncs the WAL on every commit: an acknowledged append survives a power cut, not only a process crash.
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);
  return db;
}
