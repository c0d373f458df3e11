/**
 * The bytes of a C2SP tlog-tiles hash tile (height 8) of the tree of `size` leaves, taken from an in-memory tree of
 * the same entries (shared/read-model/transparency/memory-tree.ts, built by appending, not from tiles): what the log's tiles
 * must serve. Undefined when the tree of `size` leaves does not hold every hash of the tile yet.
 */
import type { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import type { Tile } from '../../shared/read-model/transparency/tiles.ts';

export function expectedTile(tree: MemoryTree, size: number, { level, index, width }: Tile): Buffer | undefined {
  // Level L of tiles holds the hashes of tree level 8L: size / 256^L of them are complete.
  if (index * 256 + width > Math.floor(size / 256 ** level)) return undefined;
  return Buffer.concat(Array.from({ length: width }, (_, i) => tree.get(8 * level, index * 256 + i)));
}
