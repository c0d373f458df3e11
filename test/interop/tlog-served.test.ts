/**
 * What the transparency log serves over HTTP, handed to Go's golang.org/x/mod/sumdb/tlog and note: the checkpoint
 * and verifier key under /.well-known/transparency/, the inclusion and consistency proofs under /api/public/, and the
 * hash tiles under /transparency/tile/, each fetched from the log's routes (transparency-routes.ts) over the log the
 * publisher signs (log-publisher.ts), built by a rebuild from an event store. Go builds its own tree from the stored
 * events' entries: its roots, proofs and tiles are the expected values, and its note.Open, CheckRecord and CheckTree
 * judge the served bytes.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { entryText, readEntryTexts } from '../../shared/transparency/log-entry.ts';
import { parseTilePath, tilePath, type Tile } from '../../shared/transparency/tiles.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { askGo, buildGoTlog, type GoAnswer } from '../support/go-tlog.ts';
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

  let events: EventStore;
  let log: TransparencyLog;
  let server: Server;
  const served: { checkpoint: string; key: string; tiles: Buffer[]; inclusion: Proof[]; consistency: Proof[] } = {
    checkpoint: '', key: '', tiles: [], inclusion: [], consistency: [],
  };
  let go: GoAnswer;

  before(async function () {
    const built = await buildGoTlog();
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    events = openSqliteEventStore(':memory:');
    for (let first = 0; first < SIZE; first += 1_000) {
      const count = Math.min(1_000, SIZE - first);
      await events.append(`serial-SN-${first}`, Array.from({ length: count }, (_, i) => serialRegistered(`SN-${first + i}`)), 'no_stream');
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
    served.checkpoint = await (await get('/.well-known/transparency/checkpoint')).text();
    served.key = await (await get('/.well-known/transparency/key')).text();
    served.tiles = await Promise.all(TILES.map(async (tile) => Buffer.from(await (await get(`/transparency/${tilePath(tile)}`)).arrayBuffer())));
    served.inclusion = await Promise.all(INCLUSIONS.map(async ([index, size]) =>
      (await get(`/api/public/transparency/inclusion?index=${index}&tree_size=${size}`)).json() as Promise<Proof>));
    served.consistency = await Promise.all(CONSISTENCIES.map(async ([from, to]) =>
      (await get(`/api/public/transparency/consistency?from=${from}&to=${to}`)).json() as Promise<Proof>));
    const entries = (await readEntryTexts(events, 0, SIZE)).map((texts) => Buffer.from(entryText(texts), 'utf8').toString('base64'));
    go = await askGo(built.program, {
      entries,
      inclusion: INCLUSIONS.map(([index, size], i) => ({ index, size, proof: served.inclusion[i]!.proof })),
      consistency: CONSISTENCIES.map(([from, to], i) => ({ from, to, proof: served.consistency[i]!.proof })),
      notes: [served.checkpoint],
      verifier_key: served.key,
      tiles: TILES.map((tile, i) => ({ ...tile, data: served.tiles[i]!.toString('base64') })),
    });
  });
  after(async () => {
    if (server) await new Promise((resolve) => server.close(resolve));
    await log?.stop();
    await events?.close();
  });

  it('serves a checkpoint of every stored event that Go\'s note.Open accepts with the served key, its root Go\'s root of the entries', function () {
    expect(go.notes[0]).to.deep.include({ error: '', origin: ORIGIN, size: SIZE, root: go.roots[SIZE - 1], root_matches: true, verified: 1 });
  });

  it('serves inclusion proofs that Go\'s CheckRecord accepts against Go\'s roots, and that are Go\'s own proofs', function () {
    INCLUSIONS.forEach(([index, size], i) => {
      const answer = go.inclusion[i]!;
      expect(answer.error, `leaf ${index} of ${size}`).to.equal('');
      expect(served.inclusion[i]!.proof, `leaf ${index} of ${size}`).to.deep.equal(answer.go_proof);
      expect(served.inclusion[i]!.root, `root of ${size}`).to.equal(go.roots[size - 1]);
    });
  });

  it('serves consistency proofs that Go\'s CheckTree accepts against Go\'s roots, and that are Go\'s own proofs', function () {
    CONSISTENCIES.forEach(([from, to], i) => {
      const answer = go.consistency[i]!;
      expect(answer.error, `${from} to ${to}`).to.equal('');
      expect(served.consistency[i]!.proof, `${from} to ${to}`).to.deep.equal(answer.go_proof);
      expect(served.consistency[i]!.root, `root of ${to}`).to.equal(go.roots[to - 1]);
    });
  });

  it('serves the hash tiles Go reads from its own tree, at the paths Go names them (height 8)', function () {
    TILES.forEach((tile, i) => {
      const answer = go.tiles[i]!;
      expect(answer.error, tilePath(tile)).to.equal('');
      expect(served.tiles[i]!.toString('base64'), tilePath(tile)).to.equal(answer.go_data);
      expect(tilePath(tile)).to.equal(answer.path.replace('tile/8/', 'tile/'));
      expect(parseTilePath(tilePath(tile))).to.deep.equal(tile);
    });
  });
});
