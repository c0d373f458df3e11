/**
 * The public routes that are not catalogue operations (the discovery files, /docs, the demo's images, the log's keys
 * and tiles) against the embedded service (`npm start`'s wiring), held to what docs/api.md and the contract ask of
 * every public request. "Read your writes": any public request may send `X-Min-Position`, and a value that is not
 * canonical decimal digits is 422 in the usual shape, `loc: ["header", "x-min-position"]`; a valid one on a route
 * whose answer does not depend on how far the read models have come is answered at once. CORS: a page on another
 * site may send any public request `Accept-Signature` and `X-Min-Position`, so every public GET route's preflight
 * allows them, as the operations' preflights do (read-api/middleware/preflight.ts). On main at b3120d0: every one of
 * these routes answered 200 to `X-Min-Position: -1`, a tile's preflight was 404 and the others' 200 with no
 * `Access-Control-Allow-Headers`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { CONTRACT_DISCOVERY_FILES } from '../support/contract-answers.ts';

/** Longer than any test here waits for an answer: a route that waited for the position asked would show it. */
const WAIT_MS = 30_000;
const PAST_EVERY_EVENT = String(Number.MAX_SAFE_INTEGER);

describe('the public routes that are not operations: X-Min-Position and CORS preflights', function () {
  this.timeout(120_000);
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  /** Every public GET route that is no operation, the log's checkpoint and proofs aside (they wait: log-min-position.test.ts). */
  let paths: string[];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-non-operation-routes-'));
    service = await startWatchcat(
      loadConfig({
        DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', MIN_POSITION_WAIT_MS: String(WAIT_MS),
        FILE_RATE_LIMIT_PER_MINUTE: '100000',
      }),
      createLogger('silent', 'non-operation-routes-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
    const size = Number((await (await fetch(`${api}/transparency/checkpoint`)).text()).split('\n')[1]);
    expect(size, 'the demo catalogue\'s events, signed').to.be.above(256);
    paths = [
      ...CONTRACT_DISCOVERY_FILES, '/.well-known/jwks.json', '/docs', '/docs/assets/init.js', '/images/watches/AUR-SP-001/main.svg',
      '/.well-known/transparency/key', '/.well-known/transparency/keys',
      // A full tile and the partial tile at the edge of the tree.
      '/transparency/tile/0/000', `/transparency/tile/0/${String(Math.floor(size / 256)).padStart(3, '0')}${size % 256 === 0 ? '' : `.p/${size % 256}`}`,
    ];
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers each with 422 in the usual shape to an X-Min-Position that is not canonical digits', async () => {
    for (const path of paths) {
      expect((await fetch(`${api}${path}`)).status, `${path} without the header`).to.equal(200);
      for (const value of ['-1', '01', 'abc', '1.5', '9007199254740992']) {
        const answer = await fetch(`${api}${path}`, { headers: { 'x-min-position': value } });
        const what = `${path} with X-Min-Position: ${value}`;
        expect(answer.status, what).to.equal(422);
        expect(answer.headers.get('content-type'), what).to.equal('application/json; charset=utf-8');
        const { detail } = await answer.json() as { detail: { loc: unknown[]; input: unknown; type: string; msg: string }[] };
        expect(detail, what).to.have.length(1);
        expect(detail[0]!.loc, what).to.deep.equal(['header', 'x-min-position']);
        expect(detail[0]!.input, what).to.equal(value);
        expect(detail[0]!.type, what).to.be.a('string');
        expect(detail[0]!.msg, what).to.be.a('string');
      }
    }
  });

  it('answers each at once to a valid X-Min-Position, even one past every event: none of them has anything to wait for', async () => {
    for (const path of paths) {
      const started = performance.now();
      const plain = await fetch(`${api}${path}`);
      const asked = await fetch(`${api}${path}`, { headers: { 'x-min-position': PAST_EVERY_EVENT } });
      expect(asked.status, path).to.equal(200);
      expect(Buffer.from(await asked.arrayBuffer()), path).to.deep.equal(Buffer.from(await plain.arrayBuffer()));
      expect(performance.now() - started, path).to.be.below(WAIT_MS / 4);
    }
  });

  it('answers each preflight with 204 allowing GET, Accept-Signature and X-Min-Position, as an operation\'s', async () => {
    const preflight = (path: string) => fetch(`${api}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept-signature, x-min-position' },
    });
    const listed = (header: string | null) => (header ?? '').toLowerCase().split(/,\s*/);
    const operation = await preflight('/api/public/catalogue');
    expect(operation.status).to.equal(204);
    for (const path of paths) {
      const answer = await preflight(path);
      expect(answer.status, path).to.equal(204);
      expect(answer.headers.get('access-control-allow-origin'), path).to.equal('*');
      expect(listed(answer.headers.get('access-control-allow-methods')), path).to.include.members(['get', 'head']);
      expect(listed(answer.headers.get('access-control-allow-headers')), path)
        .to.include.members(['accept-signature', 'x-min-position'])
        .and.to.include.members(listed(operation.headers.get('access-control-allow-headers')));
      expect(Number(answer.headers.get('access-control-max-age')), path).to.be.above(0);
    }
  });
});
