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
import { hash } from 'node:crypto';

const HASH_BYTES = 32;
/** The "previous hash" of the first event of a stream, and of the first event of the store. */
export const GENESIS_HASH: Buffer = Buffer.alloc(HASH_BYTES);

const LENGTH_BYTES = 4;

/** Writes `field(text)` at `offset` of `target`; answers the offset after it. */
function writeField(target: Buffer, offset: number, text: string, byteLength: number): number {
  target.writeUInt32BE(byteLength, offset);
  return offset + LENGTH_BYTES + target.write(text, offset + LENGTH_BYTES, 'utf8');
}

// Both hashes are one-shot digests of one buffer laid out as above: an append hashes every event twice, and a
// streaming Hash object per field costs more than the bytes it hashes.
export function streamHash(type: string, data: string, metadata: string, previousStreamHash: Uint8Array): Buffer {
  const typeBytes = Buffer.byteLength(type, 'utf8');
  const dataBytes = Buffer.byteLength(data, 'utf8');
  const metadataBytes = Buffer.byteLength(metadata, 'utf8');
  const input = Buffer.allocUnsafe(3 * LENGTH_BYTES + typeBytes + dataBytes + metadataBytes + previousStreamHash.length);
  let offset = writeField(input, 0, type, typeBytes);
  offset = writeField(input, offset, data, dataBytes);
  offset = writeField(input, offset, metadata, metadataBytes);
  input.set(previousStreamHash, offset);
  return hash('sha256', input, 'buffer') as Buffer;
}

export function chainHash(ownStreamHash: Uint8Array, previousChainHash: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([ownStreamHash, previousChainHash]), 'buffer') as Buffer;
}
