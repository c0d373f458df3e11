/**
 * Hash tile paths and bounds (C2SP tlog-tiles, height 8). Paths are checked against Go's tlog in
 * test/interop/tlog-interop.test.ts; here, what a server must refuse: other spellings of a tile, and tiles the
 * tree does not hold yet.
 */
import { expect } from 'chai';
import { MemoryTree } from '../../../shared/transparency/memory-tree.ts';
import { parseTilePath, tileData } from '../../../shared/transparency/tiles.ts';

describe('transparency log: hash tiles', function () {
  it('names each tile by one path only', function () {
    expect(parseTilePath('tile/0/x001/x234/067.p/5')).to.deep.equal({ level: 0, index: 1_234_067, width: 5 });
    expect(parseTilePath('tile/1/000')).to.deep.equal({ level: 1, index: 0, width: 256 });
    for (const path of ['tile/0/x000/005', 'tile/0/005.p/256', 'tile/0/005.p/0', 'tile/0/005.p/05', 'tile/0/5', 'tile/entries/000', 'tile/0/000/', 'tile/00/000']) {
      expect(parseTilePath(path), path).to.equal(undefined);
    }
  });

  it('gives a tile only once the tree holds every hash of it: 300 leaves hold tile 0/000, 0/001.p/44 and 1/000.p/1', function () {
    const tree = new MemoryTree();
    for (let i = 0; i < 300; i += 1) tree.append(Buffer.from(`leaf ${i}`));
    expect(tileData(tree, 300, { level: 0, index: 0, width: 256 })).to.have.length(256 * 32);
    expect(tileData(tree, 300, { level: 0, index: 1, width: 44 })).to.have.length(44 * 32);
    expect(tileData(tree, 300, { level: 0, index: 1, width: 45 })).to.equal(undefined);
    expect(tileData(tree, 300, { level: 0, index: 1, width: 256 })).to.equal(undefined);
    expect(tileData(tree, 255, { level: 0, index: 0, width: 256 })).to.equal(undefined);
    expect(tileData(tree, 300, { level: 1, index: 0, width: 1 })).to.have.length(32);
    expect(tileData(tree, 300, { level: 1, index: 0, width: 2 })).to.equal(undefined);
    expect(tileData(tree, 300, { level: 2, index: 0, width: 1 })).to.equal(undefined);
  });
});
