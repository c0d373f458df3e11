/**
 * The audit chain of the SQLite event store, exported so an auditor can recompute it from the stored rows alone.
 *
 * Canonical byte layout (every hash is SHA-256, 32 raw bytes, stored as a 32-byte BLOB):
 *
 *   stream_hash = SHA-256( field(type) || field(data) || field(metadata) || previous_stream_hash )
 *   chain_hash  = SHA-256( stream_hash || previous_chain_hash )
 *
 * where `field(x)` is the length of the UTF-8 bytes of `x` as a 4-byte unsigned big-endian integer followed by those
 * bytes; `data` and `metadata` are the exact JSON texts stored in their columns (not re-serialised);
 * `previous_stream_hash` is the stream_hash of the previous revision of the same stream, and `previous_chain_hash`
 * the chain_hash of the previous event in global (position) order; both are 32 zero bytes for the first one.
 * The length prefixes keep field boundaries unambiguous, so no two different events hash alike by shifting bytes.
 */
import { createHash } from 'node:crypto';

export const HASH_BYTES = 32;
/** The "previous hash" of the first event of a stream, and of the first event of the store. */
export const GENESIS_HASH: Buffer = Buffer.alloc(HASH_BYTES);

function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeUInt32BE(bytes.length, 0);
  return Buffer.concat([prefix, bytes]);
}

export function streamHash(type: string, data: string, metadata: string, previousStreamHash: Uint8Array): Buffer {
  return createHash('sha256')
    .update(lengthPrefixed(type))
    .update(lengthPrefixed(data))
    .update(lengthPrefixed(metadata))
    .update(previousStreamHash)
    .digest();
}

export function chainHash(ownStreamHash: Uint8Array, previousChainHash: Uint8Array): Buffer {
  return createHash('sha256').update(ownStreamHash).update(previousChainHash).digest();
}
