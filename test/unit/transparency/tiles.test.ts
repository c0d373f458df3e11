/**
 * Hash tile paths and bounds (C2SP tlog-tiles, height 8). Paths are checked against Go's tlog in
 * test/interop/tlog-interop.test.ts; here, what a server must refuse: other spellings of a tile, and tiles the
 * tree does not hold yet; and the bytes the log serves (TileLog.tile, as the tile route reads it) are the hashes of an
 * in-memory tree of the same entries.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { entryText, readEntryTexts } from '../../../shared/read-model/transparency/log-entry.ts';
import { MemoryTree } from '../../../shared/read-model/transparency/memory-tree.ts';
import { parseTilePath, type Tile } from '../../../shared/read-model/transparency/tiles.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { signedLogOf } from '../../support/signed-log.ts';
import { expectedTile } from '../../support/tree-tiles.ts';

describe('transparency log: hash tiles', function () {
  it('names each tile by one path only', function () {
    expect(parseTilePath('tile/0/x001/x234/067.p/5')).to.deep.equal({ level: 0, index: 1_234_067, width: 5 });
    expect(parseTilePath('tile/1/000')).to.deep.equal({ level: 1, index: 0, width: 256 });
    // Partial widths and levels of more than one digit (C2SP tlog-tiles: decimal, no leading zeros).
    expect(parseTilePath('tile/0/001.p/44')).to.deep.equal({ level: 0, index: 1, width: 44 });
    expect(parseTilePath('tile/0/x003/906.p/255')).to.deep.equal({ level: 0, index: 3906, width: 255 });
    expect(parseTilePath('tile/12/000.p/3')).to.deep.equal({ level: 12, index: 0, width: 3 });
    for (const path of ['tile/0/x000/005', 'tile/0/005.p/256', 'tile/0/005.p/0', 'tile/0/005.p/05', 'tile/0/5', 'tile/entries/000', 'tile/0/000/', 'tile/00/000']) {
      expect(parseTilePath(path), path).to.equal(undefined);
    }
  });

  it('serves a tile only once the tree holds every hash of it: of 300 leaves, tile 0/000, 0/001.p/44 and 1/000.p/1, the in-memory tree\'s hashes', async function () {
    const events = openSqliteEventStore(':memory:');
    try {
      for (let i = 0; i < 300; i += 1) await events.append(`serial-SN-${i}`, [serialRegistered(`SN-${i}`)], 'no_stream');
      const tree = new MemoryTree();
      for (const texts of await readEntryTexts(events, 0, 300)) tree.append(entryText(texts));
      const { log } = await signedLogOf(events, generateKeyPairSync('ed25519').privateKey, 'watch.example/watchcat/events');
      // What the tile route reads: the log of one snapshot, bounded by the size it answers under.
      const served = async (tile: Tile, size: number) => (await (await log.read()).log.tile(tile, size));
      try {
        for (const tile of [{ level: 0, index: 0, width: 256 }, { level: 0, index: 1, width: 44 }, { level: 1, index: 0, width: 1 }]) {
          const bytes = await served(tile, 300);
          expect(bytes && Buffer.from(bytes).toString('base64'), JSON.stringify(tile)).to.equal(expectedTile(tree, 300, tile)!.toString('base64'));
        }
        expect(await served({ level: 0, index: 1, width: 45 }, 300)).to.equal(undefined);
        expect(await served({ level: 0, index: 1, width: 256 }, 300)).to.equal(undefined);
        expect(await served({ level: 0, index: 0, width: 256 }, 255), 'not in the tree of 255 leaves').to.equal(undefined);
        expect(await served({ level: 1, index: 0, width: 2 }, 300)).to.equal(undefined);
        expect(await served({ level: 2, index: 0, width: 1 }, 300)).to.equal(undefined);
      } finally {
        await log.stop();
      }
    } finally {
      await events.close();
    }
  });
});
