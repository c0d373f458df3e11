/** Recomputes the SQLite store's audit hashes from the raw rows, as an auditor would, for tests. */
import Database from 'better-sqlite3';
import { chainHash, GENESIS_HASH, streamHash } from '../../shared/adapters/sqlite/event-hash.ts';

interface HashedRow { position: number; stream: string; type: string; data: string; metadata: string; stream_hash: Buffer; chain_hash: Buffer }

/** Positions whose stored stream or chain hash differs from the recomputed one (empty when the chain holds). */
export function brokenHashPositions(file: string): { checked: number; broken: number[] } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT position, stream, type, data, metadata, stream_hash, chain_hash FROM events ORDER BY position').iterate() as IterableIterator<HashedRow>;
    const lastOfStream = new Map<string, Buffer>();
    let previousChain = GENESIS_HASH;
    let checked = 0;
    const broken: number[] = [];
    for (const row of rows) {
      const expectedStream = streamHash(row.type, row.data, row.metadata, lastOfStream.get(row.stream) ?? GENESIS_HASH);
      const expectedChain = chainHash(expectedStream, previousChain);
      if (!row.stream_hash.equals(expectedStream) || !row.chain_hash.equals(expectedChain)) broken.push(row.position);
      lastOfStream.set(row.stream, expectedStream);
      previousChain = expectedChain;
      checked += 1;
    }
    return { checked, broken };
  } finally {
    db.close();
  }
}
