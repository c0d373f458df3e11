/**
 * The newest checkpoint the log's signers on this machine signed or served, kept in
 * `DATA_DIR/transparency/checkpoint.sqlite3` for log-publisher.ts, with the witnesses' cosignatures of it that the
 * publisher checked. Several API processes may share a DATA_DIR: a save replaces the kept checkpoint in one SQLite
 * transaction, and only with a larger tree, or adds to it the signature lines another note of the same checkpoint (its
 * very text) carries, so the record never goes back whoever saves in whichever order, and a reader sees one whole
 * checkpoint. (Files renamed into place could not promise it: two processes that each check the record then rename
 * can put the older last, and a folder listed while another process renames in it may miss the largest file.)
 * SQLite's locks are the kernel's, let go when a process dies; each save is on disk before it returns.
 * `checkpoint.note`, the file of earlier versions, is taken in, then removed. Removing the record resets it
 * (docs/api.md, "Stores put back from a copy").
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { withCosignatures } from '../../shared/read-model/transparency/cosignature.ts';
import { noteText, parseNote, signatureLine } from '../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointDoc } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { BUSY_TIMEOUT_MS } from '../../shared/adapters/sqlite/event-database.ts';
import type { SignedCheckpointRecord } from './log-publisher.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kept (
  one  INTEGER PRIMARY KEY CHECK (one = 1),
  size INTEGER NOT NULL,
  note TEXT    NOT NULL
) STRICT;
`;
const KEEP = `INSERT INTO kept (one, size, note) VALUES (1, ?, ?)
  ON CONFLICT (one) DO UPDATE SET size = excluded.size, note = excluded.note WHERE excluded.size > kept.size`;

export function checkpointFile(dataDir: string): SignedCheckpointRecord {
  const dir = join(dataDir, 'transparency');
  const earlier = join(dir, 'checkpoint.note');
  /** Runs `use` on the record, opened for it alone: nothing stays open between a signer's rare saves. */
  const withRecord = <T>(use: (db: Database.Database) => T): T => {
    // The folder also holds the serials' VRF memo (serial-vrf-file.ts): owner-only, whichever makes it first.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const db = new Database(join(dir, 'checkpoint.sqlite3'));
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // FULL: a save survives a power cut, not only a crash of the process.
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
      return use(db);
    } finally {
      db.close();
    }
  };
  return {
    load: () => withRecord((db) => {
      // An earlier version's file is taken in where a signer starts: at its first load, not at every save.
      if (existsSync(earlier)) {
        const note = readFileSync(earlier, 'utf8');
        db.prepare(KEEP).run(signedCheckpointDoc(note).size, note);
        rmSync(earlier, { force: true });
      }
      return (db.prepare('SELECT note FROM kept').get() as { note: string } | undefined)?.note;
    }),
    save: (note) => withRecord((db) => {
      // IMMEDIATE: the kept note is read and written under one write lock, so two processes' lines are both kept.
      db.transaction(() => {
        const kept = (db.prepare('SELECT note FROM kept').get() as { note: string } | undefined)?.note;
        if (kept !== undefined && noteText(kept) === noteText(note)) {
          db.prepare('UPDATE kept SET note = ?').run(withCosignatures(kept, parseNote(note).signatures.map(signatureLine)));
        } else {
          db.prepare(KEEP).run(signedCheckpointDoc(note).size, note);
        }
      }).immediate();
    }),
  };
}
