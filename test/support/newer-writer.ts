/**
 * A newer version of the service appending to the same SQLite file, as its own adapter would: the next revisions
 * of the stream, the audit hashes chained on, in one IMMEDIATE transaction. Its events are ones this version's
 * strict codec refuses (fields or types it does not know, or a changed shape), which is why they are written here
 * and not through this version's `append`.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { chainHash, GENESIS_HASH, streamHash } from '../../shared/adapters/sqlite/event-hash.ts';
import { BUSY_TIMEOUT_MS } from '../../shared/adapters/sqlite/event-database.ts';

export interface NewerEvent {
  type: string;
  data: unknown;
  metadata: object;
}

/** Appends `events` at the end of `stream`; answers their positions. */
export function appendAsNewerVersion(file: string, stream: string, events: readonly NewerEvent[]): number[] {
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const write = db.transaction(() => {
      const head = db.prepare('SELECT revision, stream_hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').get(stream) as
        { revision: number; stream_hash: Buffer } | undefined;
      let revision = head?.revision ?? -1;
      let previousStream: Buffer = head?.stream_hash ?? GENESIS_HASH;
      let previousChain = (db.prepare('SELECT chain_hash FROM events ORDER BY position DESC LIMIT 1').pluck().get() as Buffer | undefined) ?? GENESIS_HASH;
      const insert = db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata, stream_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      return events.map(({ type, data, metadata }) => {
        const [dataText, metadataText] = [JSON.stringify(data), JSON.stringify(metadata)];
        revision += 1;
        previousStream = streamHash(type, dataText, metadataText, previousStream);
        previousChain = chainHash(previousStream, previousChain);
        return Number(insert.run(stream, revision, randomUUID(), type, dataText, metadataText, previousStream, previousChain).lastInsertRowid);
      });
    });
    return write.immediate();
  } finally {
    db.close();
  }
}
