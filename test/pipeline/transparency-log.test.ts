/**
 * docs/api.md, "Transparency log", over HTTP against the embedded service (`npm start`'s wiring): the signed
 * checkpoint, the verifier key, the proofs and the hash tiles a client fetches are checked by Go's golang.org/x/mod/sumdb
 * note and tlog packages (note.Open, tlog.CheckRecord, tlog.CheckTree, tlog.ReadTileData), which also build the
 * expected tree from the entries; an appended event is covered by a checkpoint within one second; bad parameters are 422 in the usual
 * shape, written out here from the contract's table.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { entryText, readEntryTexts, type EntryFields } from '../../shared/read-model/transparency/log-entry.ts';
import { tilePath, type Tile } from '../../shared/read-model/transparency/tiles.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { askGo, buildGoTlog } from '../support/go-tlog.ts';
import { send } from '../support/http.ts';
import { publicKeyFromX, readSignatureInput, signatureBase, signatureBytes, verifyBase } from '../support/rfc9421-by-hand.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';

/** An entry's bytes: the UTF-8 of its text. */
const entry = (fields: EntryFields) => Buffer.from(entryText(fields), 'utf8');

const ORIGIN = 'watch.example/watchcat/events';
const AUDIT_KEY = 'f3a9c1e07b5d2a4468e1c9b0d7f2a5e3';
const CATALOGUE_KEY = '0b7e4d2c9a1f5e6d3c8b2a7f4e1d9c05';

interface Proof { tree_size: number; root: string; leaf_index?: number; leaf_hash?: string; proof: string[] }

describe('transparency log over HTTP: checkpoint, key and proofs', function () {
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat;
  let events: EventStore;
  let api: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-tlog-'));
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000',
        PUBLIC_BASE_URL: 'https://watch.example', ADMIN_API_KEYS: `${AUDIT_KEY}:audit,${CATALOGUE_KEY}:catalogue`,
      }),
      createLogger('silent', 'transparency-log-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
    events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
  });
  after(async () => {
    await events.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const checkpoint = async () => {
    const response = await send(api, '/.well-known/transparency/checkpoint');
    const [origin, size, root] = response.text.split('\n');
    return { response, origin, size: Number(size), root: root! };
  };
  const stored = async () => (await readEntryTexts(events, 0, 100_000));

  it('publishes a checkpoint of every stored event as a signed note, and links its verifier key from status', async () => {
    const { response, origin, size } = await checkpoint();
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('text/plain; charset=utf-8');
    expect(origin).to.equal(ORIGIN);
    expect(size).to.equal((await stored()).length);
    // The tree, the serial index's line (shared/read-model/transparency/serial-index.ts), then the log's signature.
    expect(response.text).to.match(new RegExp(`^${ORIGIN}\\n\\d+\\n[A-Za-z0-9+/]{43}=\\nwatchcat/serial-index/v1 [A-Za-z0-9+/]{43}= [A-Za-z0-9+/]{43}=\\n\\n\u2014 ${ORIGIN} [A-Za-z0-9+/]+=*\\n$`));
    const key = await send(api, '/.well-known/transparency/key');
    expect(key.status).to.equal(200);
    expect(key.headers['content-type']).to.equal('text/plain; charset=utf-8');
    // name + 8 hex digits of key id + base64 of 0x01 || 32-byte key (33 bytes: 44 characters, no padding).
    expect(key.text).to.match(new RegExp(`^${ORIGIN}\\+[0-9a-f]{8}\\+A[Q-Za-f][A-Za-z0-9+/]{42}$`));
    const status = (await send(api, '/api/public/status')).json();
    expect(status.agents.transparency).to.equal('https://watch.example/.well-known/transparency/key');
    // The key history (the log key's own, as the answer-signing key has one): the key that signs, from the time its
    // file was written.
    const history = (await send(api, '/.well-known/transparency/keys')).json() as { keys: { verifier_key: string; nbf: number }[] };
    expect(history.keys.map((entry) => entry.verifier_key)).to.deep.equal([key.text]);
    expect(history.keys[0]!.nbf).to.be.a('number');
  });

  it('covers an appended event with a signed checkpoint within one second', async () => {
    const before = (await checkpoint()).size;
    const { position } = await events.append('serial-TL-0001', [serialRegistered('TL-0001')], 'no_stream');
    const appended = Date.now();
    let size = before;
    while (size <= before && Date.now() - appended < 5_000) {
      await sleep(10);
      size = (await checkpoint()).size;
    }
    const took = Date.now() - appended;
    expect(size).to.equal(before + 1);
    expect(took, `covered after ${took} ms`).to.be.below(1_000);
    const byPosition = (await send(api, `/api/public/transparency/inclusion?position=${position}&tree_size=${size}`)).json() as Proof;
    expect(byPosition.leaf_index).to.equal(before);
  });

  it('proves the event at a position against the latest checkpoint when no tree size is given, an answer not kept an hour', async () => {
    const before = (await checkpoint()).size;
    const { position } = await events.append('serial-TL-0002', [serialRegistered('TL-0002')], 'no_stream');
    let latest = await checkpoint();
    const appended = Date.now();
    while (latest.size <= before && Date.now() - appended < 5_000) {
      await sleep(10);
      latest = await checkpoint();
    }
    const alone = await send(api, `/api/public/transparency/inclusion?position=${position}`);
    expect(alone.status).to.equal(200);
    expect(alone.headers['cache-control'], 'it changes as the log grows').to.equal('no-cache');
    const sized = await send(api, `/api/public/transparency/inclusion?position=${position}&tree_size=${latest.size}`);
    expect(sized.headers['cache-control'], 'a proof for given sizes never changes').to.equal('public, max-age=3600');
    // The same proof as one asked against the latest checkpoint's size, whose root is the checkpoint's.
    expect(alone.json()).to.deep.equal(sized.json());
    expect((alone.json() as Proof).root).to.equal(latest.root);
    expect((alone.json() as Proof).leaf_index, 'the appended event, the last leaf').to.equal(before);
    expect((alone.json() as Proof).tree_size).to.equal(latest.size);
  });

  describe('checked by Go', function () {
    registerLegSuite('Go', this);

    it('serves a checkpoint, key, proofs and hash tiles that Go\'s note and tlog packages accept, the tiles Go\'s own', async function () {
      const built = await buildGoTlog();
      if ('why' in built) return cannotRun(this, 'Go', built.why);
      const { response, size } = await checkpoint();
      const entries = (await stored()).slice(0, size).map((text) => entry(text).toString('base64'));
      const pairs = [[0, size], [size - 1, size], [Math.floor(size / 2), size], [3, 7]] as const;
      const inclusion = await Promise.all(pairs.map(async ([index, treeSize]) => {
        const proof = (await send(api, `/api/public/transparency/inclusion?index=${index}&tree_size=${treeSize}`)).json() as Proof;
        return { index, size: treeSize, proof: proof.proof };
      }));
      const sizes = [[1, size], [7, size], [size - 1, size], [size, size], [3, 8]] as const;
      const consistency = await Promise.all(sizes.map(async ([from, to]) => {
        const proof = (await send(api, `/api/public/transparency/consistency?from=${from}&to=${to}`)).json() as Proof;
        return { from, to, proof: proof.proof };
      }));
      const key = (await send(api, '/.well-known/transparency/key')).text;
      // Every hash tile of the checkpoint's tree: the full and the partial ones of level 0, and of level 1 if any.
      const full = Math.floor(size / 256);
      const tiles: Tile[] = [
        ...Array.from({ length: full }, (_, index) => ({ level: 0, index, width: 256 })),
        ...(size % 256 > 0 ? [{ level: 0, index: full, width: size % 256 }] : []),
        ...(full > 0 ? [{ level: 1, index: 0, width: full }] : []),
      ];
      const served = await Promise.all(tiles.map(async (tile) => {
        const answer = await fetch(`${api}/transparency/${tilePath(tile)}`);
        expect(answer.status, tilePath(tile)).to.equal(200);
        return Buffer.from(await answer.arrayBuffer()).toString('base64');
      }));
      const go = await askGo(built.program, {
        entries, inclusion, consistency, notes: [response.text], verifier_key: key,
        tiles: tiles.map((tile, i) => ({ ...tile, data: served[i]! })),
      });
      expect(go.notes[0]).to.deep.include({ error: '', origin: ORIGIN, size, root_matches: true });
      expect(go.inclusion.map((r) => r.error)).to.deep.equal(pairs.map(() => ''));
      expect(go.consistency.map((r) => r.error)).to.deep.equal(sizes.map(() => ''));
      expect(go.tiles.map((r) => r.error)).to.deep.equal(tiles.map(() => ''));
      expect(served, 'the served tiles are the ones Go reads from its tree of the entries').to.deep.equal(go.tiles.map((r) => r.go_data));
    });
  });

  it('answers an inclusion proof with the tree size, root, leaf index and leaf hash, counted by the general limit', async () => {
    const { size, root } = await checkpoint();
    const response = await send(api, `/api/public/transparency/inclusion?index=0&tree_size=${size}`);
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(response.headers['x-ratelimit-limit']).to.equal('100000');
    expect(response.headers['etag']).to.be.a('string');
    const body = response.json() as Proof;
    expect(Object.keys(body)).to.have.members(['tree_size', 'root', 'leaf_index', 'leaf_hash', 'proof']);
    expect(body).to.deep.include({ tree_size: size, root, leaf_index: 0 });
    expect(body.proof).to.have.length(Math.ceil(Math.log2(size)));
  });

  it('serves hash tiles of the checkpoint\'s tree, full ones immutable, and no tile it does not hold nor any entry', async () => {
    const { size } = await checkpoint();
    const leaf = async (index: number) =>
      ((await send(api, `/api/public/transparency/inclusion?index=${index}&tree_size=${size}`)).json() as Proof).leaf_hash;
    const full = Math.floor(size / 256);
    const rest = size % 256;
    expect(rest, 'a demo history whose size is a multiple of 256 leaves no partial tile to test').to.be.above(0);
    const tile = async (path: string) => {
      const response = await fetch(`${api}/transparency/tile/${path}`);
      return { response, bytes: Buffer.from(await response.arrayBuffer()) };
    };
    const partial = await tile(`0/${String(full).padStart(3, '0')}.p/${rest}`);
    expect(partial.response.status).to.equal(200);
    expect(partial.response.headers.get('content-type')).to.equal('application/octet-stream');
    expect(partial.response.headers.get('cache-control')).to.equal('public, max-age=60');
    expect(partial.bytes).to.have.length(rest * 32);
    expect(partial.bytes.subarray((rest - 1) * 32).toString('base64')).to.equal(await leaf(full * 256 + rest - 1));
    if (full > 0) {
      const first = await tile('0/000');
      expect(first.response.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(first.bytes.subarray(32, 64).toString('base64')).to.equal(await leaf(1));
    }
    expect((await tile(`0/${String(full).padStart(3, '0')}.p/${rest + 1}`)).response.status).to.equal(404);
    expect((await tile('entries/000')).response.status).to.equal(404);
  });

  it('serves entry bundles to the admin API\'s audit scope only: each entry the stored event\'s bytes, hashing to its leaf', async () => {
    const { size } = await checkpoint();
    const admin = `http://127.0.0.1:${service.ports.admin}`;
    const width = Math.min(size, 256);
    const path = `/admin/transparency/tile/entries/000${width === 256 ? '' : `.p/${width}`}`;
    const bundle = await fetch(`${admin}${path}`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.equal('application/octet-stream');
    const bytes = Buffer.from(await bundle.arrayBuffer());
    const entries: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 2 + bytes.readUInt16BE(at)) entries.push(bytes.subarray(at + 2, at + 2 + bytes.readUInt16BE(at)));
    expect(entries).to.have.length(width);
    const texts = (await stored()).slice(0, width);
    expect(entries.map((e) => e.toString('utf8'))).to.deep.equal(texts.map((text) => entryText(text)));
    const proof = (await send(api, `/api/public/transparency/inclusion?index=${width - 1}&tree_size=${size}`)).json() as Proof;
    expect(createHash('sha256').update(Buffer.concat([Buffer.of(0), entries.at(-1)!])).digest('base64')).to.equal(proof.leaf_hash);
    expect((await fetch(`${admin}${path}`)).status, 'no key').to.equal(401);
    expect((await fetch(`${admin}${path}`, { headers: { authorization: `Bearer ${CATALOGUE_KEY}` } })).status, 'another scope').to.equal(403);
    expect((await fetch(`${admin}/admin/transparency/tile/entries/999`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } })).status).to.equal(404);
    expect((await fetch(`${api}/transparency/tile/entries/000.p/1`)).status, 'never on the public port').to.equal(404);
  });

  it('serves auditors the whole log at one base URL, /admin/transparency: the checkpoint and hash tiles beside the entry bundles', async () => {
    const admin = `http://127.0.0.1:${service.ports.admin}/admin/transparency`;
    const audited = (path: string) => fetch(`${admin}${path}`, { headers: { authorization: `Bearer ${AUDIT_KEY}` } });
    const note = await audited('/checkpoint');
    expect(note.status).to.equal(200);
    const text = await note.text();
    expect(text, 'the note the public port serves').to.equal((await checkpoint()).response.text);
    const size = Number(text.split('\n')[1]);
    const tile = `/tile/0/000${size >= 256 ? '' : `.p/${size}`}`;
    const hashes = await audited(tile);
    expect(hashes.status).to.equal(200);
    expect(Buffer.from(await hashes.arrayBuffer()).equals(Buffer.from(await (await fetch(`${api}/transparency${tile}`)).arrayBuffer())),
      'the hash tile the public port serves').to.equal(true);
    // The tile holding leaf `size`, the first beyond the signed tree (C2SP tlog-tiles: index in three digits below 1000).
    const beyond = `${String(Math.floor(size / 256)).padStart(3, '0')}${size % 256 === 255 ? '' : `.p/${(size % 256) + 1}`}`;
    expect((await audited(`/tile/0/${beyond}`)).status, 'a tile beyond the signed tree').to.equal(404);
    expect((await audited(`/tile/entries/${beyond}`)).status, 'a bundle beyond the signed tree').to.equal(404);
    expect((await fetch(`${admin}/checkpoint`)).status, 'no key').to.equal(401);
    expect((await fetch(`${admin}/checkpoint`, { headers: { authorization: `Bearer ${CATALOGUE_KEY}` } })).status, 'another scope').to.equal(403);
  });

  it('states the checkpoint a signed answer was served under, covered by its signature', async () => {
    const { size, root } = await checkpoint();
    const answer = await send(api, '/api/public/status', { headers: { 'Accept-Signature': 'sig1=("@status")' } });
    expect(answer.headers['watchcat-checkpoint']).to.equal(`${size} ${root}`);
    const input = readSignatureInput(String(answer.headers['signature-input']));
    expect(input.identifiers).to.include('"watchcat-checkpoint"');
    const values: Record<string, string> = {
      '"@status"': String(answer.status), '"@method";req': 'GET', '"@path";req': '/api/public/status', '"@query";req': '?',
      // The service's own authority, PUBLIC_BASE_URL's, never the Host the client sent (issue 42).
      '"@authority";req': 'watch.example',
    };
    for (const identifier of input.identifiers) {
      const name = JSON.parse(identifier.split(';')[0]!) as string;
      if (!name.startsWith('@')) values[identifier] = String(answer.headers[name]);
    }
    const [key] = (await send(api, '/.well-known/jwks.json')).json().keys as { x: string }[];
    const signature = signatureBytes(String(answer.headers['signature']), input.label);
    expect(verifyBase(signatureBase(input.identifiers, values, input.params), signature, publicKeyFromX(key!.x))).to.equal(true);
    const unsigned = await send(api, '/api/public/status');
    expect(unsigned.headers['watchcat-checkpoint']).to.equal(undefined);
  });

  it('refuses missing, malformed and out-of-range parameters with 422 in the contract\'s shape', async () => {
    const { size } = await checkpoint();
    const detail = async (path: string) => {
      const response = await send(api, path);
      expect(response.status, path).to.equal(422);
      return response.json().detail as unknown[];
    };
    expect(await detail('/api/public/transparency/inclusion?tree_size=1')).to.deep.equal([
      { type: 'missing', loc: ['query', 'index'], msg: 'Field required', input: null },
    ]);
    expect(await detail('/api/public/transparency/inclusion?index=abc')).to.deep.equal([
      // No tree_size is no error: the proof is then against the latest checkpoint.
      { type: 'int_parsing', loc: ['query', 'index'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc' },
    ]);
    expect(await detail(`/api/public/transparency/inclusion?index=0&tree_size=${size + 1}`)).to.deep.equal([{
      type: 'value_error', loc: ['query', 'tree_size'], msg: `Value error, the latest checkpoint holds ${size} leaves`,
      input: size + 1, ctx: { error: `the latest checkpoint holds ${size} leaves` },
    }]);
    expect(await detail('/api/public/transparency/inclusion?index=4&tree_size=4')).to.deep.equal([{
      type: 'value_error', loc: ['query', 'index'], msg: 'Value error, leaf 4 is not in a tree of 4 leaves',
      input: 4, ctx: { error: 'leaf 4 is not in a tree of 4 leaves' },
    }]);
    // The store's positions run 1, 2, 3... and every event is a leaf: the checkpoint's last leaf is at position `size`.
    expect(await detail('/api/public/transparency/inclusion?position=999999&tree_size=1')).to.deep.equal([{
      type: 'value_error', loc: ['query', 'position'], msg: `Value error, the latest checkpoint counts the events up to position ${size}`,
      input: 999999, ctx: { error: `the latest checkpoint counts the events up to position ${size}` },
    }]);
    expect(await detail('/api/public/transparency/consistency?from=0&to=3')).to.deep.equal([
      { type: 'greater_than_equal', loc: ['query', 'from'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
    ]);
    expect(await detail('/api/public/transparency/consistency?from=5&to=3')).to.deep.equal([{
      type: 'value_error', loc: ['query', 'from'], msg: 'Value error, the earlier tree cannot be larger than 3 leaves',
      input: 5, ctx: { error: 'the earlier tree cannot be larger than 3 leaves' },
    }]);
    expect(await detail('/api/public/transparency/consistency?from=1&to=2&lang=de')).to.deep.equal([
      { type: 'literal_error', loc: ['query', 'lang'], msg: 'Input should be \'en\' or \'fr\'', input: 'de', ctx: { expected: '\'en\' or \'fr\'' } },
    ]);
  });
});
