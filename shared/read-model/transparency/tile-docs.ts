/**
 * The transparency log's tile documents (TileDoc, the `tlog` read collection): their ids, their hashes, and what
 * the projection and the readers both compute from them.
 */
import type { TileDoc } from '../documents/documents.ts';
import { HASH_SIZE, packedSubtreeRoot, type Hash } from './merkle.ts';
import { TILE_WIDTH } from './tiles.ts';

/** Characters of one hash in `TileDoc.hashes`. */
const HASH_CHARS = 44;
/** Bytes of one hash's characters with its '=' read as 'A' (`decoded`). */
const DECODED_BYTES = HASH_SIZE + 1;

export const edgeId = (level: number) => `edge:${level}`;
export const tileId = (level: number, index: number) => `tile:${level}/${index}`;

/**
 * A tile document's hashes decoded in one call rather than one a hash, `DECODED_BYTES` apart: each hash's 44
 * characters end in one '=' (32 bytes are 43 characters, the last 2 bits zero), and as 'A' (six zero bits) it
 * makes them 33 whole bytes, the hash and a byte left out.
 */
const decoded = (doc: Pick<TileDoc, 'hashes' | 'width'>): Buffer =>
  Buffer.from(doc.hashes.slice(0, doc.width * HASH_CHARS).replaceAll('=', 'A'), 'base64');

/** The hashes of a tile document, in order. */
export function tileHashes(doc: Pick<TileDoc, 'hashes' | 'width'>): Hash[] {
  const bytes = decoded(doc);
  const hashes: Hash[] = new Array(doc.width);
  for (let i = 0; i < doc.width; i += 1) hashes[i] = bytes.subarray(i * DECODED_BYTES, i * DECODED_BYTES + HASH_SIZE);
  return hashes;
}

/** The root of a full tile's hashes: the hash it stands for in the tile of the level above. */
export const tileRoot = (doc: Pick<TileDoc, 'hashes' | 'width'>): Hash => packedSubtreeRoot(decoded(doc), doc.width, DECODED_BYTES);

/** The event positions of a level-0 tile's leaves, in order. */
export const leafPositions = (doc: Pick<TileDoc, 'positions'>): number[] =>
  (doc.positions ?? '').split(',').slice(0, -1).map(Number);

/** The log's size (leaves) as its level-0 edge tells it (absent: empty). */
export const logSizeOf = (edge0: Pick<TileDoc, 'index' | 'width'> | null | undefined): number =>
  edge0 ? edge0.index * TILE_WIDTH + edge0.width : 0;

/**
 * The id of the serial index's change an event at `position` brings (SerialIndexChangeDoc): its position in 16 digits,
 * so that the ids' order is the positions' and a range of `_id` (always indexed) reads changes in log order.
 */
export const indexChangeId = (position: number): string => `index:${String(position).padStart(16, '0')}`;
