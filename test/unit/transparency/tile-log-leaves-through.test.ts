/**
 * `TileLog.leavesThrough`: how many leaves hold events at or before a position, the tree a checkpoint at that position
 * covers (what the signer signs, log-publisher.ts). Over 300 leaves, across the first full tile and the edge after
 * it; the expected sizes are counted from the event store's own positions.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { appendAll } from '../../projector/support/history.ts';
import { logProjection } from '../../support/signed-log.ts';

describe('transparency log: the tree a checkpoint position covers', function () {
  this.timeout(30_000);

  it('counts the leaves at or before a position, in the first full tile, at its end, in the edge after it, and past the log', async () => {
    const events = openSqliteEventStore(':memory:');
    try {
      await appendAll(events, Array.from({ length: 300 }, (_, i) => serialRegistered(`SZA-${String(i).padStart(4, '0')}`)));
      const positions = (await events.readAll({ after: 0, limit: 1_000 })).map((event) => event.position);
      const readStore = createMemoryReadStore();
      await rebuild({ eventStore: events, readStore, projections: [logProjection] });
      const log = await TileLog.read(await readStore.snapshot());
      const covered = (position: number) => positions.filter((at) => at <= position).length;
      for (const leaf of [0, 1, 199, 254, 255, 256, 257, 298, 299]) {
        expect(await log.leavesThrough(positions[leaf]!), `the position of leaf ${leaf}`).to.equal(leaf + 1);
      }
      expect(await log.leavesThrough(positions[0]! - 1), 'before the first event').to.equal(0);
      expect(await log.leavesThrough(positions[299]! + 10), 'past the last event').to.equal(covered(positions[299]! + 10));
    } finally {
      await events.close();
    }
  });
});
