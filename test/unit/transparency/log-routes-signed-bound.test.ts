/**
 * Issue 41, item 3: no tile or proof is served beyond the latest signed checkpoint, while the log's projection is
 * ahead of it (the events after it projected, not yet signed). The log's routes behind the front door, over a store
 * whose projection holds 300 leaves and whose checkpoint signs 200: the tile 0/000 is full in the projection but
 * partial (200 of 256) in the signed tree.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import type { TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { appendAll } from '../../projector/support/history.ts';
import { servedLogRoutes, logAheadOfItsCheckpoint, logProjection } from '../../support/signed-log.ts';

const serials = (count: number, from: number) => Array.from({ length: count }, (_, i) => serialRegistered(`BND-${String(from + i).padStart(4, '0')}`));

describe('transparency log routes: nothing beyond the latest signed checkpoint while the projection is ahead', function () {
  this.timeout(60_000);
  let events: EventStore;
  let log: TransparencyLog;
  let server: Awaited<ReturnType<typeof servedLogRoutes>>;
  let base: string;
  /** Positions of the events of leaves 199 (the last signed) and 250 (projected, not signed). */
  let signedPosition: number;
  let aheadPosition: number;

  before(async () => {
    // Its publisher looks only at its start (and when told): it signs the 200 leaves and stays there.
    const ahead = await logAheadOfItsCheckpoint(serials(200, 0), serials(50, 200), serials(1, 250), serials(49, 251));
    ({ events, log, signedPosition } = ahead);
    aheadPosition = ahead.aheadPositions[1]!;
    expect((await TileLog.read(await ahead.readStore.snapshot())).size, 'leaves projected').to.equal(300);
    expect(log.checkpoint()?.size, 'leaves signed').to.equal(200);
    server = await servedLogRoutes(log);
    ({ base } = server);
  });
  after(async () => {
    await server.close();
    await log.stop();
    await events.close();
  });

  const status = async (path: string) => (await fetch(`${base}${path}`)).status;

  it('serves the signed tree\'s partial tile, but neither a wider one nor the full tile the projection holds', async () => {
    expect(await status('/transparency/tile/0/000.p/200')).to.equal(200);
    expect(await status('/transparency/tile/0/000.p/201')).to.equal(404);
    expect(await status('/transparency/tile/0/000')).to.equal(404);
    expect(await status('/transparency/tile/0/001.p/44')).to.equal(404);
  });

  it('proves inclusion in the signed tree, and refuses a larger tree or a leaf only the projection holds (422)', async () => {
    expect(await status('/api/public/transparency/inclusion?index=199&tree_size=200')).to.equal(200);
    expect(await status(`/api/public/transparency/inclusion?position=${signedPosition}&tree_size=200`)).to.equal(200);
    expect(await status('/api/public/transparency/inclusion?index=250&tree_size=300')).to.equal(422);
    expect(await status('/api/public/transparency/inclusion?index=199&tree_size=201')).to.equal(422);
    expect(await status(`/api/public/transparency/inclusion?position=${aheadPosition}&tree_size=200`)).to.equal(422);
  });

  it('names the parameter the client gave in a 422 for a leaf outside the tree asked: position, not index', async () => {
    const refused = await fetch(`${base}/api/public/transparency/inclusion?position=${signedPosition}&tree_size=100`);
    expect(refused.status).to.equal(422);
    const { detail } = await refused.json() as { detail: { loc: string[]; input: unknown }[] };
    expect(detail.map(({ loc, input }) => ({ loc, input }))).to.deep.equal([{ loc: ['query', 'position'], input: signedPosition }]);
  });

  it('says in each 422 where the signed tree ends: its size for a larger tree, the leaf for an event past it', async () => {
    const refusal = async (path: string) => {
      const refused = await fetch(`${base}${path}`);
      expect(refused.status, path).to.equal(422);
      return ((await refused.json()) as { detail: { loc: string[]; msg: string }[] }).detail.map(({ loc, msg }) => ({ loc, msg }));
    };
    expect(await refusal('/api/public/transparency/consistency?from=100&to=300')).to.deep.equal([
      { loc: ['query', 'to'], msg: 'Value error, the latest checkpoint holds 200 leaves' },
    ]);
    expect(await refusal('/api/public/transparency/inclusion?index=0&tree_size=300')).to.deep.equal([
      { loc: ['query', 'tree_size'], msg: 'Value error, the latest checkpoint holds 200 leaves' },
    ]);
    // The event is projected (leaf 250) but not signed: outside the tree asked, named as the client named it.
    expect(await refusal(`/api/public/transparency/inclusion?position=${aheadPosition}&tree_size=200`)).to.deep.equal([
      { loc: ['query', 'position'], msg: 'Value error, leaf 250 is not in a tree of 200 leaves' },
    ]);
  });

  it('refuses an event the latest checkpoint does not count yet as not yet there (503), not as absent from the log', async () => {
    // Against the latest checkpoint (no tree_size): the event is on its way, the client asks again.
    for (const position of [aheadPosition, aheadPosition * 1_000]) {
      const refused = await fetch(`${base}/api/public/transparency/inclusion?position=${position}`);
      expect(refused.status, `position ${position}`).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(((await refused.json()) as { detail: string }).detail).to.equal(
        `The latest checkpoint counts the events up to position ${signedPosition}, not yet the one at position ${position}; try again shortly`,
      );
    }
    // The proofs take `lang`: the refusal is a message, in French with `lang=fr` (docs/api.md, "Conventions").
    const french = await fetch(`${base}/api/public/transparency/inclusion?position=${aheadPosition}&lang=fr`);
    expect(french.status).to.equal(503);
    expect(((await french.json()) as { detail: string }).detail).to.equal(
      `Le dernier point de contrôle couvre les événements jusqu'à la position ${signedPosition}, pas encore celui de la position ${aheadPosition} ; réessayez dans un instant`,
    );
    // In a tree the client chose, an event past it is the client's choice: 422, naming where the checkpoint ends.
    const beyond = await fetch(`${base}/api/public/transparency/inclusion?position=${aheadPosition * 1_000}&tree_size=200`);
    expect(beyond.status).to.equal(422);
    expect(((await beyond.json()) as { detail: { msg: string }[] }).detail.map(({ msg }) => msg)).to.deep.equal([
      `Value error, the latest checkpoint counts the events up to position ${signedPosition}`,
    ]);
  });

  it('answers only GET and HEAD with a tile: a POST to a tile\'s path is not the tile, but a 405 saying which methods are', async () => {
    const posted = await fetch(`${base}/transparency/tile/0/000.p/200`, { method: 'POST' });
    expect(posted.status).to.equal(405);
    expect(posted.headers.get('allow')).to.equal('HEAD, GET, OPTIONS');
    expect(posted.headers.get('content-type')).not.to.equal('application/octet-stream');
  });

  it('proves consistency up to the signed tree, and refuses one to a larger tree (422)', async () => {
    expect(await status('/api/public/transparency/consistency?from=100&to=200')).to.equal(200);
    expect(await status('/api/public/transparency/consistency?from=100&to=300')).to.equal(422);
    expect(await status('/api/public/transparency/consistency?from=200&to=201')).to.equal(422);
  });

  it('answers 503 for the checkpoint, proofs and tiles while the tiles are behind the checkpoint (a store filled again)', async () => {
    // The tiles of a store being filled again: 4 leaves of the history, the latest checkpoint still of 200.
    const shorter = openSqliteEventStore(':memory:');
    await appendAll(shorter, serials(4, 0));
    const refill = createMemoryReadStore();
    await rebuild({ eventStore: shorter, readStore: refill, projections: [logProjection] });
    const tiles = await TileLog.read(await refill.snapshot());
    await shorter.close();
    const behind: TransparencyLog = { ...log, read: async () => ({ ...(await log.read()), log: tiles }) };
    expect((await behind.read()).log.size, 'the tiles behind').to.be.below(200);
    const refilling = await servedLogRoutes(behind);
    try {
      for (const path of ['/transparency/checkpoint', '/api/public/transparency/inclusion?index=0&tree_size=1', '/api/public/transparency/consistency?from=1&to=2', '/transparency/tile/0/000.p/1']) {
        const refused = await fetch(`${refilling.base}${path}`);
        expect(refused.status, path).to.equal(503);
        expect(await refused.json(), path).to.deep.equal({ detail: 'The transparency log is unavailable; try again later' });
      }
      // The proofs take `lang`: in French with `lang=fr` (docs/api.md, "Conventions"); the checkpoint and tiles take none.
      for (const path of ['/api/public/transparency/inclusion?index=0&tree_size=1&lang=fr', '/api/public/transparency/consistency?from=1&to=2&lang=fr']) {
        const refused = await fetch(`${refilling.base}${path}`);
        expect(refused.status, path).to.equal(503);
        expect(await refused.json(), path).to.deep.equal({ detail: 'Le journal de transparence est indisponible ; réessayez plus tard' });
      }
    } finally {
      await refilling.close();
    }
  });
});
