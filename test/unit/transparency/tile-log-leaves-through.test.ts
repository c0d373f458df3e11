/**
 * `TileLog.leavesThrough`: how many leaves hold events at or before a position, the tree a checkpoint at that position
 * covers (what the signer signs, log-publisher.ts), `indexOf`, the leaf of an event's position, and
 * `leafPositionsBetween`, the positions of a run of leaves. Over 300 leaves,
 * across the first full tile and the edge after it (found without a query once the edge's first leaf is at or before
 * the position), and over 256, a full tile and an empty edge; the expected values are counted from the event store's
 * own positions.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { appendAll } from '../../projector/support/history.ts';
import { logProjection } from '../../support/signed-log.ts';

/** The log of `leaves` serial registrations, and the positions the event store gave them, in order. */
async function logOf(leaves: number, lost: string[] = []): Promise<{ log: TileLog; positions: number[] }> {
  const events = openSqliteEventStore(':memory:');
  try {
    await appendAll(events, Array.from({ length: leaves }, (_, i) => serialRegistered(`SZA-${String(i).padStart(4, '0')}`)));
    const positions = (await events.readAll({ after: 0, limit: 1_000 })).map((event) => event.position);
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    // Tiles a store lost (a damaged copy): deleted past every position, so the projection's writes cannot pass them.
    if (lost.length > 0) await readStore.write('tlog', lost.map((id) => ({ delete: { _id: id, position: Number.MAX_SAFE_INTEGER } })));
    return { log: await TileLog.read(await readStore.snapshot()), positions };
  } finally {
    await events.close();
  }
}

describe('transparency log: the tree a checkpoint position covers', function () {
  this.timeout(30_000);

  it('counts the leaves at or before a position, in the first full tile, at its end, in the edge after it, and past the log', async () => {
    const { log, positions } = await logOf(300);
    const covered = (position: number) => positions.filter((at) => at <= position).length;
    for (const leaf of [0, 1, 199, 254, 255, 256, 257, 298, 299]) {
      expect(await log.leavesThrough(positions[leaf]!), `the position of leaf ${leaf}`).to.equal(leaf + 1);
    }
    expect(await log.leavesThrough(positions[0]! - 1), 'before the first event').to.equal(0);
    expect(await log.leavesThrough(positions[299]! + 10), 'past the last event').to.equal(covered(positions[299]! + 10));
    for (const leaf of [0, 255, 256, 299]) expect(await log.indexOf(positions[leaf]!), `the leaf of position ${positions[leaf]}`).to.equal(leaf);
    expect(await log.indexOf(positions[299]! + 1), 'a position past the last event').to.equal(undefined);
    expect(await log.leafPositionsBetween(250, 262), 'across the full tile and the edge').to.deep.equal(positions.slice(250, 262));
    expect(await log.leafPositionsBetween(0, 3), 'in the full tile').to.deep.equal(positions.slice(0, 3));
    expect(await log.leafPositionsBetween(297, 300), 'to the last leaf').to.deep.equal(positions.slice(297, 300));
    expect(await log.leafPositionsBetween(299, 299), 'none').to.deep.equal([]);
    let refused: unknown;
    await log.leafPositionsBetween(299, 301).catch((error: unknown) => { refused = error; });
    expect(refused, 'past the log').to.be.instanceOf(Error);
  });

  it('counts none in an empty log, and names a leaf whose tile the store lost rather than answer without it', async () => {
    const { log: empty } = await logOf(0);
    expect([await empty.leavesThrough(10), await empty.indexOf(10)]).to.deep.equal([0, undefined]);
    const { log } = await logOf(300, ['tile:0/0']);
    let refused: unknown;
    await log.leafPositionsBetween(254, 258).catch((error: unknown) => { refused = error; });
    expect((refused as Error | undefined)?.message).to.equal('the log\'s tiles do not hold leaf 254');
  });

  it('counts them when the last tile is full and the edge after it empty', async () => {
    const { log, positions } = await logOf(256);
    expect(log.size).to.equal(256);
    for (const leaf of [0, 128, 255]) expect(await log.leavesThrough(positions[leaf]!), `the position of leaf ${leaf}`).to.equal(leaf + 1);
    expect(await log.leavesThrough(positions[255]! + 10), 'past the last event').to.equal(256);
    expect(await log.indexOf(positions[255]!), 'the last leaf').to.equal(255);
  });
});
