/**
 * Hash tiles' hashes and subtree nodes kept across reads (tile-nodes.ts): they are the tile's hashes and the tree's
 * own nodes, full tile or partial, an entry serves only the very text it was decoded from, and the bound drops the
 * least recently used tile first. Expected nodes come from RFC 9162's definition written out here over the tile's
 * hashes, and the stored text is built here as TileDoc holds it (base64, 44 characters a hash).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { TileNodes } from '../../../shared/read-model/transparency/tile-nodes.ts';

const sha256 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
/** The root of complete subtree `hashes` (a power of two of them), by RFC 9162's recursion. */
const subtreeRoot = (hashes: Buffer[]): Buffer => (hashes.length === 1
  ? hashes[0]!
  : sha256(Buffer.of(1), subtreeRoot(hashes.slice(0, hashes.length / 2)), subtreeRoot(hashes.slice(hashes.length / 2))));

/** Tile `id` of `width` hashes derived from `seed`, as its document holds them, and the hashes. */
function tile(id: string, seed: string, width = 256) {
  const hashes = Array.from({ length: width }, (_, i) => sha256(Buffer.from(`${seed}/${i}`)));
  return { doc: { _id: id, hashes: hashes.map((hash) => hash.toString('base64')).join(''), width }, hashes };
}

const hex = (hash: Uint8Array) => Buffer.from(hash).toString('hex');

describe('transparency log: tiles\' hashes and subtree nodes kept across reads', () => {
  for (const width of [256, 203]) {
    it(`gives the hashes of a tile of ${width} and the root of every complete subtree of them, levels 1 to 7`, () => {
      const { doc, hashes } = tile('tile:0/0', 'a', width);
      const levels = new TileNodes(4).levels(doc);
      expect(levels.map((nodes) => nodes.length)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7].map((level) => Math.floor(width / 2 ** level)));
      expect(levels[0]!.map(hex)).to.deep.equal(hashes.map(hex));
      for (let level = 1; level <= 7; level += 1) {
        const count = 2 ** level;
        const expected = Array.from({ length: Math.floor(width / count) }, (_, j) => hex(subtreeRoot(hashes.slice(j * count, (j + 1) * count))));
        expect(levels[level]!.map(hex), `level ${level}`).to.deep.equal(expected);
      }
    });
  }

  it('computes a tile once while its text is the same, and again when a tile of that id holds others or more', () => {
    const nodes = new TileNodes(4);
    const first = tile('edge:0', 'a', 100);
    const kept = nodes.levels(first.doc);
    expect(nodes.levels({ ...first.doc })).to.equal(kept);
    // A rebuild over a rewritten history could store other hashes under the same id: never answered from the old.
    const other = tile('edge:0', 'b', 100);
    expect(hex(nodes.levels(other.doc)[6]![0]!)).to.equal(hex(subtreeRoot(other.hashes.slice(0, 64))));
    // The tile still filling, longer after appends.
    const grown = tile('edge:0', 'b', 128);
    expect(nodes.levels(grown.doc)[7]!.map(hex)).to.deep.equal([hex(subtreeRoot(grown.hashes))]);
    // Its hashes are read up to its width (tile-docs.ts): the same text with another width is another tile.
    expect(nodes.levels({ ...grown.doc, width: 100 })[0]!.map(hex)).to.deep.equal(grown.hashes.slice(0, 100).map(hex));
  });

  it('keeps at most its capacity of tiles, dropping the one used least recently', () => {
    const nodes = new TileNodes(2);
    const [a, b, c] = [tile('tile:0/0', 'a'), tile('tile:0/1', 'b'), tile('tile:0/2', 'c')];
    const keptA = nodes.levels(a.doc);
    const keptB = nodes.levels(b.doc);
    expect(nodes.levels(a.doc)).to.equal(keptA);
    nodes.levels(c.doc);
    expect(nodes.levels(a.doc), 'used last but one: kept').to.equal(keptA);
    expect(nodes.levels(b.doc), 'used least recently: computed again').to.not.equal(keptB);
  });
});
