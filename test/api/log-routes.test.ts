/**
 * Issue 42, item 3: the transparency log's routes are limited, validated and named like the operations. Against the
 * embedded service (`npm start`'s wiring): tiles, checkpoint and keys count against the files limit
 * (`FILE_RATE_LIMIT_PER_MINUTE`), and a client past it gets the contract's 429 (docs/api.md, "Rate limits"); the
 * checkpoint and tiles carry an `ETag` honoured in `If-None-Match` as RFC 9110 compares it (weakly, any tag of a list);
 * the metrics count them under route templates. On main at 6d537c4: no limit (1,150 tiles/s from one client), no
 * `ETag` on tiles, the checkpoint's only matched verbatim, and `route="unmatched"` for every tile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { checkpointSpec, keyHistorySpec, verifierKeySpec } from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';

const FILE_LIMIT = 8;

describe('the transparency log\'s routes: limit, validators, metrics', function () {
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  /** Each test is its own client (a trusted proxy names it), so the limit's windows do not mix. */
  let client = 0;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${api}${path}`, { headers: { 'x-forwarded-for': `203.0.113.${client}`, ...headers } });

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-log-routes-'));
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', TRUST_PROXY: '127.0.0.1',
        FILE_RATE_LIMIT_PER_MINUTE: String(FILE_LIMIT),
      }),
      createLogger('silent', 'log-routes-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
  });
  beforeEach(() => { client += 1; });
  after(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The path of the checkpoint's first tile (full, or partial when the log holds fewer than 256 leaves). */
  const firstTile = async () => {
    const size = Number((await (await get('/.well-known/transparency/checkpoint')).text()).split('\n')[1]);
    return size >= 256 ? '/transparency/tile/0/000' : `/transparency/tile/0/000.p/${size}`;
  };

  it(`answers the ${FILE_LIMIT + 1}th tile, checkpoint or key request of a minute with 429 and the contract's headers`, async () => {
    const tile = await firstTile();
    const paths = ['/.well-known/transparency/key', '/.well-known/jwks.json', '/.well-known/transparency/keys'];
    const passed = [];
    while (passed.length < FILE_LIMIT - 1) {
      const response = await get(paths[passed.length % paths.length]!);
      await response.arrayBuffer();
      passed.push(response.status);
    }
    expect(passed).to.deep.equal(Array(FILE_LIMIT - 1).fill(200));
    const refused = await get(tile);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('x-ratelimit-limit')).to.equal(String(FILE_LIMIT));
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).to.be.within(Math.floor(Date.now() / 1000), Math.ceil(Date.now() / 1000) + 60);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(refused.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await refused.json()).to.deep.equal({ detail: `Rate limit exceeded: ${FILE_LIMIT} per 1 minute` });
    // The operations keep their own limit: the files did not use it up.
    expect((await get('/api/public/status')).status).to.equal(200);
  });

  for (const [name, path] of [['the checkpoint', async () => '/.well-known/transparency/checkpoint'], ['a tile', firstTile]] as const) {
    it(`gives ${name} an ETag, and 304 without a body to a matching If-None-Match, weak or in a list`, async () => {
      const target = await path();
      const first = await get(target);
      expect(first.status).to.equal(200);
      const etag = first.headers.get('etag')!;
      expect(etag).to.match(/^"[^"]+"$/);
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", W/${etag}`, '*']) {
        const again = await get(target, { 'if-none-match': ifNoneMatch });
        expect(again.status, ifNoneMatch).to.equal(304);
        expect(again.headers.get('etag')).to.equal(etag);
        expect((await again.arrayBuffer()).byteLength).to.equal(0);
      }
      expect((await get(target, { 'if-none-match': '"other"' })).status).to.equal(200);
    });
  }

  // Issue 43, item 1: the log's files and proofs answer through the same conditional path as every GET.
  for (const path of ['/transparency/checkpoint', '/.well-known/transparency/keys', '/api/public/transparency/inclusion?index=0&tree_size=1']) {
    it(`answers ${path} with 304 to its tag given weakly or in a list, and 200 to another tag`, async () => {
      const first = await get(path);
      expect(first.status).to.equal(200);
      const etag = first.headers.get('etag')!;
      for (const ifNoneMatch of [`W/${etag}`, `"other", W/${etag}`]) {
        const again = await get(path, { 'if-none-match': ifNoneMatch });
        expect(again.status, ifNoneMatch).to.equal(304);
        expect((await again.arrayBuffer()).byteLength).to.equal(0);
      }
      expect((await get(path, { 'if-none-match': `W/"other", "${etag.slice(1, -1)}x"` })).status).to.equal(200);
    });
  }

  it('answers HEAD for a tile as GET (RFC 9110, 9.3.2): the same status, type, length and ETag, and no body', async () => {
    const tile = await firstTile();
    const got = await get(tile);
    const head = await fetch(`${api}${tile}`, { method: 'HEAD', headers: { 'x-forwarded-for': `203.0.113.${client}` } });
    expect(head.status).to.equal(200);
    for (const name of ['content-type', 'content-length', 'etag']) expect(head.headers.get(name), name).to.equal(got.headers.get(name));
    expect((await head.arrayBuffer()).byteLength).to.equal(0);
  });

  it('answers another method on a tile, as on the checkpoint, with 405, Allow and the contract\'s body', async () => {
    const preflight = await fetch(`${api}${await firstTile()}`, {
      method: 'OPTIONS', headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET', 'x-forwarded-for': `203.0.113.${client}` },
    });
    expect(preflight.status, 'OPTIONS: a CORS preflight').to.equal(204);
    for (const path of [await firstTile(), '/transparency/checkpoint']) {
      for (const method of ['POST', 'DELETE', 'PUT']) {
        // Each its own client: more requests than one client's budget of files a minute.
        client += 1;
        const answer = await fetch(`${api}${path}`, { method, headers: { 'x-forwarded-for': `203.0.113.${client}` } });
        expect(answer.status, `${method} ${path}`).to.equal(405);
        expect(answer.headers.get('allow'), `${method} ${path}`).to.equal('HEAD, GET, OPTIONS');
        expect(await answer.json(), `${method} ${path}`).to.deep.equal({ detail: 'Method Not Allowed' });
      }
    }
  });

  it('answers each route with the Cache-Control its operation documents, whatever the case of its path or a trailing slash', async () => {
    for (const [path, spec] of [['/Transparency/Checkpoint/', checkpointSpec], ['/.well-known/transparency/KEY', verifierKeySpec], ['/.well-known/transparency/keys/', keyHistorySpec]] as const) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(200);
      expect(answer.headers.get('cache-control'), path).to.equal(spec.cacheControl);
    }
    // docs/api.md, "Proofs and tiles": a proof against the latest checkpoint (no tree_size) is marked no-cache; one
    // for given sizes never changes.
    const latest = await get('/api/public/transparency/inclusion?index=0');
    expect(latest.status).to.equal(200);
    expect(latest.headers.get('cache-control')).to.equal('no-cache');
    for (const path of ['/api/public/transparency/inclusion?index=0&tree_size=1', '/api/public/transparency/consistency?from=1&to=1']) {
      const sized = await get(path);
      expect(sized.status, path).to.equal(200);
      expect(sized.headers.get('cache-control'), path).to.match(/^public, max-age=[1-9]\d*$/);
    }
    const tile = await get(await firstTile());
    expect(tile.headers.get('content-type'), 'a tile').to.equal('application/octet-stream');
  });

  it('serves the checkpoint beside the tiles, so that a tlog-tiles client works from the one base URL /transparency', async () => {
    const beside = await get('/transparency/checkpoint');
    expect(beside.status).to.equal(200);
    expect(beside.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const note = await beside.text();
    expect(note, 'the same signed note as at its .well-known address').to.equal(await (await get('/.well-known/transparency/checkpoint')).text());
    // C2SP tlog-checkpoint: origin, tree size, root; then a blank line and the signatures.
    const [origin, size, root] = note.split('\n');
    expect(origin).to.match(/\/watchcat\/events$/);
    expect(size).to.match(/^[1-9]\d*$/);
    expect(Buffer.from(root!, 'base64')).to.have.length(32);
    expect((await get(await firstTile())).status, 'a tile under the same base').to.equal(200);
  });

  it('counts tiles and the checkpoint under route templates in the metrics, not as unmatched', async () => {
    await (await get(await firstTile())).arrayBuffer();
    const metrics = await (await fetch(`http://127.0.0.1:${service.ports.ops}/metrics`)).text();
    expect(metrics).to.match(/^http_requests_total\{method="GET",route="\/transparency\/tile\/:level\/:index",status="200"\} \d+$/m);
    expect(metrics).to.match(/^http_requests_total\{method="GET",route="\/\.well-known\/transparency\/checkpoint",status="200"\} \d+$/m);
    expect(metrics).not.to.match(/route="unmatched",status="200"/);
  });
});
