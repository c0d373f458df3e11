/**
 * What the transparency log serves over HTTP, handed to Go's golang.org/x/mod/sumdb/tlog and note: the checkpoint
 * and verifier key under /.well-known/transparency/, the inclusion and consistency proofs under /api/public/, and the
 * hash tiles under /transparency/tile/, each fetched from the log's routes (transparency-routes.ts) over the log the
 * publisher signs (log-publisher.ts), built by a rebuild from an event store. Go builds its own tree from the stored
 * events' entries: its roots, proofs and tiles are the expected values, and its note.Open, CheckRecord and CheckTree
 * judge the served bytes; as a client of the log, Go also fetches tiles itself and reads the signed tree through them
 * (tlog.TileHashReader checks each tile against the signed root before it uses a hash of it).
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { entryText, readEntryTexts } from '../../shared/read-model/transparency/log-entry.ts';
import { parseTilePath, tilePath, type Tile } from '../../shared/read-model/transparency/tiles.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { watchPriceChanged } from '../fixtures/events.ts';
import { askGo, buildGoTlog } from '../support/go-tlog.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';
import { signedLogOf } from '../support/signed-log.ts';

const ORIGIN = 'watch.example/watchcat/events';
// 257 full tiles of leaves and 44 more: a full tile on level 1, partial ones on levels 0, 1 and 2.
const SIZE = 257 * 256 + 44;
const TILES: Tile[] = [
  { level: 0, index: 0, width: 256 }, { level: 0, index: 1, width: 256 }, { level: 0, index: 256, width: 256 },
  { level: 0, index: 257, width: 44 }, { level: 0, index: 257, width: 3 }, { level: 1, index: 0, width: 256 },
  { level: 1, index: 1, width: 1 }, { level: 2, index: 0, width: 1 },
];
const INCLUSIONS = [[0, SIZE], [5, 300], [255, 256], [256, 65_536], [65_600, SIZE], [SIZE - 1, SIZE]] as const;
const CONSISTENCIES = [[1, SIZE], [3, 300], [256, 65_537], [1_000, SIZE], [SIZE - 1, SIZE], [SIZE, SIZE]] as const;

interface Proof { tree_size: number; root: string; proof: string[] }

describe('transparency log: what the service serves over HTTP, checked by Go\'s sumdb/tlog and note', function () {
  registerLegSuite('Go', this);
  this.timeout(300_000);

  let events: EventStore | undefined;
  let log: TransparencyLog | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    await log?.stop();
    await events?.close();
    [server, log, events] = [undefined, undefined, undefined];
  });

  // One test, the log built inside it: the mutation tester credits what a `before` hook runs to another test
  // (test/README.md, "Mutation score"), and the build is most of the cost.
  it('serves a checkpoint, proofs and hash tiles that Go\'s note.Open, CheckRecord, CheckTree, ReadTileData and TileHashReader find are Go\'s own', async function () {
    const built = await buildGoTlog();
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    events = openSqliteEventStore(':memory:');
    // Price changes rather than serial registrations: the log's tree is what Go judges here, and each new serial would
    // also cost the serial index one VRF evaluation (a few milliseconds) when the publisher starts, minutes in all.
    for (let first = 0; first < SIZE; first += 1_000) {
      const count = Math.min(1_000, SIZE - first);
      const reference = `REF-${String(first).padStart(12, '0')}`;
      await events.append(`watch-${reference}`, Array.from({ length: count }, (_, i) => watchPriceChanged(reference, 100_000 + first + i, 99_999 + first + i)), 'no_stream');
    }
    ({ log } = await signedLogOf(events, generateKeyPairSync('ed25519').privateKey, ORIGIN));
    server = new Koa().use(transparencyRoutes(log)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).to.equal(200);
      return response;
    };
    const checkpoint = await (await get('/.well-known/transparency/checkpoint')).text();
    const key = await (await get('/.well-known/transparency/key')).text();
    const tiles = await Promise.all(TILES.map(async (tile) => Buffer.from(await (await get(`/transparency/${tilePath(tile)}`)).arrayBuffer())));
    const inclusion = await Promise.all(INCLUSIONS.map(async ([index, size]) =>
      (await get(`/api/public/transparency/inclusion?index=${index}&tree_size=${size}`)).json() as Promise<Proof>));
    const consistency = await Promise.all(CONSISTENCIES.map(async ([from, to]) =>
      (await get(`/api/public/transparency/consistency?from=${from}&to=${to}`)).json() as Promise<Proof>));
    const go = await askGo(built.program, {
      entries: (await readEntryTexts(events, 0, SIZE)).map((texts) => Buffer.from(entryText(texts), 'utf8').toString('base64')),
      inclusion: INCLUSIONS.map(([index, size], i) => ({ index, size, proof: inclusion[i]!.proof })),
      consistency: CONSISTENCIES.map(([from, to], i) => ({ from, to, proof: consistency[i]!.proof })),
      notes: [checkpoint],
      verifier_key: key,
      tiles: TILES.map((tile, i) => ({ ...tile, data: tiles[i]!.toString('base64') })),
      // Go as a client of the log: the signed tree's hashes read through the tiles it fetches, each checked first.
      served: { url: base, size: SIZE, root: checkpoint.split('\n')[2]!, indexes: INCLUSIONS.filter(([, size]) => size === SIZE).map(([index]) => index) },
    });

    // The checkpoint covers every stored event, opened with the served key; its root is Go's of the entries.
    expect(go.notes[0]).to.deep.include({ error: '', origin: ORIGIN, size: SIZE, root: go.roots[SIZE - 1], root_matches: true, verified: 1 });
    INCLUSIONS.forEach(([index, size], i) => {
      expect(go.inclusion[i]!.error, `CheckRecord: leaf ${index} of ${size}`).to.equal('');
      expect(inclusion[i]!.proof, `leaf ${index} of ${size}`).to.deep.equal(go.inclusion[i]!.go_proof);
      expect(inclusion[i]!.root, `root of ${size}`).to.equal(go.roots[size - 1]);
    });
    CONSISTENCIES.forEach(([from, to], i) => {
      expect(go.consistency[i]!.error, `CheckTree: ${from} to ${to}`).to.equal('');
      expect(consistency[i]!.proof, `${from} to ${to}`).to.deep.equal(go.consistency[i]!.go_proof);
      expect(consistency[i]!.root, `root of ${to}`).to.equal(go.roots[to - 1]);
    });
    // Go's TileHashReader, fed the served tiles alone, finds them of the signed tree and proves its leaves from them.
    expect(go.served!.error, `tiles fetched: ${go.served!.paths.join(', ')}`).to.equal('');
    expect(go.served!.root).to.equal(go.roots[SIZE - 1]);
    expect(go.served!.paths, 'the tiles on the right edge of the tree at least').to.include.members(['tile/0/257.p/44', 'tile/1/001.p/1', 'tile/2/000.p/1']);
    expect(go.served!.proofs).to.deep.equal(INCLUSIONS.flatMap(([, size], i) => (size === SIZE ? [go.inclusion[i]!.go_proof] : [])));
    // Each tile at the path Go names it (Go writes the height 8 into its paths), with the bytes Go reads from its tree.
    TILES.forEach((tile, i) => {
      expect(go.tiles[i]!.error, tilePath(tile)).to.equal('');
      expect(tiles[i]!.toString('base64'), tilePath(tile)).to.equal(go.tiles[i]!.go_data);
      expect(tilePath(tile)).to.equal(go.tiles[i]!.path.replace('tile/8/', 'tile/'));
      expect(parseTilePath(tilePath(tile))).to.deep.equal(tile);
    });
  });
});
