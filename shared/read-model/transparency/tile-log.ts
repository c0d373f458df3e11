/**
 * The transparency log read from its projection's tiles (transparency-log.projection.ts) through a read view (a
 * snapshot, so that every read of one answer sees one state): roots, proofs and tiles of any tree size up to the
 * log's. A stored hash of level 8L + r is the root of 2^r hashes of one tile of level L, so every answer reads the
 * O(log n) tiles its hashes lie in, in one `getMany`, and hashes at most 254 nodes per tile (as Go's tlog does),
 * once per tile's content in a process (tile-nodes.ts).
 */
import type { Filter, FindOptions, GenerationStore, ReadView } from '../../ports/read-store.ts';
import type { TileDoc } from '../documents/documents.ts';
import { TileNodes } from './tile-nodes.ts';
import { edgeId, leafPositions, logSizeOf, tileHashes, tileId } from './tile-docs.ts';
import { consistencyProof, inclusionProof, ProofRangeError, treeRoot, type Hash, type SubtreeHashes } from './merkle.ts';
import { TILE_HEIGHT, TILE_WIDTH, type Tile } from './tiles.ts';

const ZERO: Hash = new Uint8Array(32);

/** Where stored hash (level, index) lies: tile (L, N), from hash `offset` of it, `count` of them. */
function locate(level: number, index: number): { tile: number; tileIndex: number; offset: number; count: number } {
  const tile = Math.floor(level / TILE_HEIGHT);
  const count = 2 ** (level % TILE_HEIGHT);
  const first = index * count;
  return { tile, tileIndex: Math.floor(first / TILE_WIDTH), offset: first % TILE_WIDTH, count };
}

/**
 * Tiles' hashes and subtree nodes, kept across reads by this process: about 10 MB at most (a tile's text, 11 KB, and
 * its 510 hashes). Enough for the upper levels of any log, the tiles still filling, and the level-0 tiles of the
 * proofs asked most.
 */
const TILES = new TileNodes(256);

/**
 * The tile documents of a read, as stored hashes: each tile's are looked up in `TILES` once a read, the first time a
 * hash of it is asked for (a proof asks for dozens).
 */
class TileHashes implements SubtreeHashes {
  readonly #docs = new Map<string, TileDoc>();
  readonly #levels = new Map<string, Hash[][]>();

  constructor(docs: readonly TileDoc[]) {
    for (const doc of docs) this.#docs.set(`${doc.level}/${doc.index}`, doc);
  }

  get(level: number, index: number): Hash {
    const { tile, tileIndex, offset, count } = locate(level, index);
    const key = `${tile}/${tileIndex}`;
    const doc = this.#docs.get(key);
    if (!doc || doc.width < offset + count) throw new Error(`the log's tiles do not hold hash ${index} of level ${level}`);
    let levels = this.#levels.get(key);
    if (!levels) this.#levels.set(key, (levels = TILES.levels(doc)));
    return levels[Math.log2(count)]![offset / count]!;
  }
}

/** Where the tiles are read: a read view's live generation, or one generation (a rebuild's, before its switch). */
interface TileSource {
  getMany(ids: string[]): Promise<TileDoc[]>;
  find(filter: Filter, options: FindOptions): Promise<TileDoc[]>;
}

export class TileLog {
  private constructor(private readonly view: TileSource, private readonly edges: readonly (TileDoc | null)[]) {}

  /** The log as `view` holds it. */
  static async read(view: ReadView): Promise<TileLog> {
    return TileLog.from({ getMany: (ids) => view.getMany<TileDoc>('tlog', ids), find: (filter, options) => view.find<TileDoc>('tlog', filter, options) });
  }

  /** The log as one generation of its collection holds it. */
  static async ofGeneration(generation: GenerationStore): Promise<TileLog> {
    return TileLog.from({
      getMany: async (ids) => (await generation.getStored(ids)).filter((doc): doc is TileDoc => !('_deleted' in doc)),
      find: (filter, options) => generation.find<TileDoc>(filter, options),
    });
  }

  private static async from(source: TileSource): Promise<TileLog> {
    const [edge0] = await source.getMany([edgeId(0)]);
    return new TileLog(source, [edge0 ?? null]);
  }

  /** Leaves in the log. */
  get size(): number {
    return logSizeOf(this.edges[0]);
  }

  /**
   * Whether every serial event of the log has its serial index change stored (TileDoc's `index_from_start`): false
   * for a log projected in part by a version that wrote none, or holding a serial's event it could not read, until its
   * rebuild. An empty log holds every one.
   */
  get indexFromStart(): boolean {
    const edge0 = this.edges[0];
    return !edge0 || edge0.index_from_start === true;
  }

  /**
   * Runs `compute` over the stored hashes it asks for: once over stand-ins to learn which (the hashes a root or a
   * proof needs depend on the sizes alone), then over the tiles holding them, read at once.
   */
  private async withHashes<T>(compute: (hashes: SubtreeHashes) => T): Promise<T> {
    const wanted = new Map<string, { level: number; index: number }>();
    compute({
      get: (level, index) => {
        const { tile, tileIndex } = locate(level, index);
        wanted.set(`${tile}/${tileIndex}`, { level: tile, index: tileIndex });
        return ZERO;
      },
    });
    if (wanted.size === 0) return compute({ get: () => ZERO });
    // The level-0 edge, read with the log, is the tile of its index: that one is not read again (the tile of that
    // index is not stored yet, or holds no leaf the log counts that the edge lacks).
    const edge0 = this.edges[0];
    const held = edge0 && wanted.has(`0/${edge0.index}`) ? [edge0] : [];
    const ids = [...new Set([...wanted.values()]
      .filter(({ level, index }) => !(level === 0 && index === edge0?.index))
      .flatMap(({ level, index }) => [tileId(level, index), edgeId(level)]))];
    const docs = await this.view.getMany(ids);
    // An edge read stands for its tile only when it is that tile (not one left behind by a fill since).
    return compute(new TileHashes([...docs.filter((doc) => wanted.has(`${doc.level}/${doc.index}`)), ...held]));
  }

  /**
   * The level-0 tile whose first leaf is the last one at or before `position` (none before it: undefined). The level-0
   * edge, read with the log, is the last tile of its level (a filled tile is written before the edge moves on), so
   * once its first leaf is at or before `position` it is that tile, and the log's look at its latest position reads
   * nothing more. Further back, the tile is found by its first leaf's position: an indexed query on MongoDB, which
   * FerretDB answers by decoding the whole collection, every tile and serial index change (issue 44: a look per
   * replica per change kept FerretDB busy).
   */
  private async tileThrough(position: number): Promise<TileDoc | undefined> {
    const edge0 = this.edges[0];
    if (edge0?.first_position !== undefined && edge0.first_position <= position) return edge0;
    const [doc] = await this.view.find({ first_position: { $lte: position } }, { sort: { first_position: -1 }, limit: 1 });
    return doc;
  }

  private check(size: number): void {
    if (size > this.size) throw new ProofRangeError(`the log holds ${this.size} leaves, not ${size}`);
  }

  async root(size: number): Promise<Hash> {
    this.check(size);
    return this.withHashes((hashes) => treeRoot(hashes, size));
  }

  async leafHash(index: number): Promise<Hash> {
    this.check(index + 1);
    return this.withHashes((hashes) => hashes.get(0, index));
  }

  /** Leaf hash, audit path and root of leaf `index` in the tree of `size` leaves, in one read. */
  async inclusion(index: number, size: number): Promise<{ leaf: Hash; proof: Hash[]; root: Hash }> {
    this.check(size);
    return this.withHashes((hashes) => ({ leaf: hashes.get(0, index), proof: inclusionProof(hashes, index, size), root: treeRoot(hashes, size) }));
  }

  async consistency(first: number, second: number): Promise<{ proof: Hash[]; root: Hash }> {
    this.check(second);
    return this.withHashes((hashes) => ({ proof: consistencyProof(hashes, first, second), root: treeRoot(hashes, second) }));
  }

  /** A hash tile of the tree of `size` leaves (at most the log's), or undefined when that tree does not hold it. */
  async tile({ level, index, width }: Tile, size: number): Promise<Uint8Array | undefined> {
    const complete = Math.floor(Math.min(size, this.size) / 2 ** (TILE_HEIGHT * level));
    if (index * TILE_WIDTH + width > complete) return undefined;
    const [doc] = (await this.view.getMany([tileId(level, index), edgeId(level)])).filter((found) => found.index === index);
    if (!doc || doc.width < width) return undefined;
    return Buffer.concat(tileHashes(doc).slice(0, width));
  }

  /**
   * How many leaves hold events at positions up to `position`: the size of the largest tree of the log holding no
   * event after it (positions rise with the leaf index), whatever a writer left in the tiles beyond it. The tree a
   * checkpoint at that position covers, and the tree a signed answer read at that position pins.
   */
  async leavesThrough(position: number): Promise<number> {
    const doc = await this.tileThrough(position);
    if (!doc) return 0;
    const positions = leafPositions(doc).slice(0, doc.width);
    let count = 0;
    while (count < positions.length && positions[count]! <= position) count += 1;
    return Math.min(doc.index * TILE_WIDTH + count, this.size);
  }

  /** The event position of leaf `index`, or undefined when the log does not hold that leaf. */
  async positionOf(index: number): Promise<number | undefined> {
    if (index < 0 || index >= this.size) return undefined;
    const doc = (await this.levelZeroTiles([Math.floor(index / TILE_WIDTH)])).values().next().value;
    return doc && doc.width > index % TILE_WIDTH ? leafPositions(doc)[index % TILE_WIDTH] : undefined;
  }

  /** The event positions of leaves `from` to `to` (excluded), from the level-0 tiles holding them (the edge: read already). */
  async leafPositionsBetween(from: number, to: number): Promise<number[]> {
    this.check(to);
    if (to <= from) return [];
    const first = Math.floor(from / TILE_WIDTH);
    const tiles = await this.levelZeroTiles(Array.from({ length: Math.floor((to - 1) / TILE_WIDTH) - first + 1 }, (_, offset) => first + offset));
    const positions = new Map([...tiles].map(([tile, doc]) => [tile, leafPositions(doc)]));
    return Array.from({ length: to - from }, (_, offset) => {
      const leaf = from + offset;
      const at = positions.get(Math.floor(leaf / TILE_WIDTH))?.[leaf % TILE_WIDTH];
      if (at === undefined) throw new Error(`the log's tiles do not hold leaf ${leaf}`);
      return at;
    });
  }

  /**
   * The level-0 tiles of these indices that are stored, by index: the edge, read with the log, stands for its own
   * index (the tile of that index is not stored yet, or holds no leaf the log counts that the edge lacks); the others
   * are read at once.
   */
  private async levelZeroTiles(indices: number[]): Promise<Map<number, TileDoc>> {
    const edge0 = this.edges[0];
    const read = await this.view.getMany(indices.filter((index) => index !== edge0?.index).map((index) => tileId(0, index)));
    const tiles = new Map(read.map((doc) => [doc.index, doc]));
    if (edge0 && indices.includes(edge0.index)) tiles.set(edge0.index, edge0);
    return tiles;
  }

  /** The leaf index of the event at `position`, or undefined when no event of the log has it. */
  async indexOf(position: number): Promise<number | undefined> {
    const doc = await this.tileThrough(position);
    const offset = doc ? leafPositions(doc).indexOf(position) : -1;
    return doc && offset !== -1 ? doc.index * TILE_WIDTH + offset : undefined;
  }
}
