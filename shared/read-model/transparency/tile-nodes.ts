/**
 * The hashes of hash tiles, decoded and with the nodes of their complete subtrees, once per tile a process reads
 * rather than once per proof: a proof from the tiles decodes each tile it reads (up to 11 KB of base64) and hashes up
 * to 254 nodes within each (levels 1 to 7 above its hashes), which is most of what it costs. A full tile never
 * changes, and the one still filling at each level changes once an append. An entry is kept by the tile document's
 * id with the text of its hashes and serves only a tile of that very text: its nodes are a pure function of it, so
 * no rebuild, switch or rewritten tile is ever answered from an entry of other hashes. Bounded, the least recently
 * used out first.
 */
import { nodeHash, type Hash } from './merkle.ts';
import type { TileDoc } from '../documents/documents.ts';
import { tileHashes } from './tile-docs.ts';
import { TILE_HEIGHT } from './tiles.ts';

export class TileNodes {
  readonly #entries = new Map<string, { text: string; width: number; levels: Hash[][] }>();

  constructor(private readonly capacity: number) {}

  /**
   * The hashes of tile `doc`: `levels[0]` its stored hashes, `levels[r][j]` the root of 2^r of them from j * 2^r,
   * for r from 1 to 7, as many as it holds whole.
   */
  levels(doc: Pick<TileDoc, '_id' | 'hashes' | 'width'>): Hash[][] {
    const { _id: id, hashes: text, width } = doc;
    const known = this.#entries.get(id);
    this.#entries.delete(id);
    const entry = known && known.text === text && known.width === width ? known : { text, width, levels: withSubtrees(tileHashes(doc)) };
    this.#entries.set(id, entry);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return entry.levels;
  }
}

function withSubtrees(hashes: Hash[]): Hash[][] {
  const levels: Hash[][] = [hashes];
  let below = hashes;
  for (let level = 1; level < TILE_HEIGHT; level += 1) {
    const nodes: Hash[] = new Array(Math.floor(below.length / 2));
    for (let i = 0; i < nodes.length; i += 1) nodes[i] = nodeHash(below[2 * i]!, below[2 * i + 1]!);
    levels.push(nodes);
    below = nodes;
  }
  return levels;
}
