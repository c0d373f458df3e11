import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import type Koa from 'koa';
import { postJson, send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { checkpoint, putAll } from './support/catalogue-fixture.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';

describe('HTTP manners of the public app', () => {
  const seen = { general: [] as string[], verify: [] as string[] };
  const counting = (into: string[]): Koa.Middleware => (ctx, next) => { into.push(ctx.path); return next(); };
  const llms: Koa.Middleware = (ctx, next) => {
    if (ctx.path !== '/llms.txt') return next();
    ctx.type = 'text/plain';
    ctx.body = '# Maison Test';
    return undefined;
  };
  /** An error whose own answer cannot be built: JSON has no BigInt. */
  const unanswerable: Koa.Middleware = (ctx, next) => {
    if (ctx.path !== '/unanswerable') return next();
    throw new RequestValidationError([{ type: 'less_than_equal', loc: ['body'], msg: 'x', input: 1, ctx: { le: 10n } }]);
  };
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ rateLimits: { general: counting(seen.general), verify: counting(seen.verify) }, extraRoutes: [llms, unanswerable] });
  });
  after(async () => { await app.close(); });

  it('answers 404 Not Found in JSON for an unknown path, inside and outside /api/public', async () => {
    for (const path of ['/api/public/nope', '/nope', '/api/public/catalogue/RG-100/extra']) {
      const res = await send(app.url, path);
      expect(res.status, path).to.equal(404);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.json()).to.deep.equal({ detail: 'Not Found' });
    }
  });

  it('answers 405 Method Not Allowed for a wrong method on a known path', async () => {
    const cases: [string, string][] = [['PUT', '/api/public/catalogue'], ['POST', '/api/public/collections'],
      ['GET', '/api/public/configurator/price'], ['DELETE', '/api/public/verify/AUR-0001']];
    for (const [method, path] of cases) {
      const res = await send(app.url, path, { method });
      expect(res.status, `${method} ${path}`).to.equal(405);
      expect(res.json()).to.deep.equal({ detail: 'Method Not Allowed' });
    }
  });

  it('answers 413 for a body above 16 KiB, declared or streamed, without parsing it', async () => {
    const big = JSON.stringify({ collection: 'regate', model_ref: 'RG-100', pad: 'x'.repeat(17 * 1024) });
    const declared = await postJson(app.url, '/api/public/configurator/price', JSON.parse(big));
    expect(declared.status).to.equal(413);
    expect(declared.json()).to.deep.equal({ detail: 'Request body too large' });
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${app.url}/api/public/configurator/price`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => { body += c.toString(); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(streamed.status).to.equal(413);
    expect(JSON.parse(streamed.body)).to.deep.equal({ detail: 'Request body too large' });
  });

  it('accepts a body of exactly 16 KiB', async () => {
    const base = JSON.stringify({ collection: 'regate', model_ref: 'RG-100', pad: '' });
    const body = JSON.stringify({ collection: 'regate', model_ref: 'RG-100', pad: 'x'.repeat(16 * 1024 - base.length) });
    expect(Buffer.byteLength(body)).to.equal(16 * 1024);
    expect((await send(app.url, '/api/public/configurator/price', { method: 'POST', body })).status).to.equal(200);
  });

  it('tags every GET 200 with an ETag and answers 304 to a matching If-None-Match, strong, weak, listed or *', async () => {
    const first = await send(app.url, '/api/public/collections');
    const etag = first.headers['etag'] as string;
    expect(etag).to.match(/^"[^"]+"$/);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await send(app.url, '/api/public/collections', { headers: { 'if-none-match': header } });
      expect(res.status, header).to.equal(304);
      expect(res.text).to.equal('');
      expect(res.headers['etag']).to.equal(etag);
    }
    expect((await send(app.url, '/api/public/collections', { headers: { 'if-none-match': '"other"' } })).status).to.equal(200);
    for (const path of ['/api/public/status', '/api/public/catalogue', '/api/public/catalogue/RG-100', '/api/public/verify/AUR-0001']) {
      expect((await send(app.url, path)).headers['etag'], path).to.be.a('string');
    }
  });

  it('sends Cache-Control per operation', async () => {
    for (const path of ['/api/public/catalogue', '/api/public/catalogue/RG-100', '/api/public/collections', '/api/public/configurator/options/regate']) {
      expect((await send(app.url, path)).headers['cache-control'], path).to.equal('public, max-age=60');
    }
    expect((await send(app.url, '/api/public/verify/AUR-0001')).headers['cache-control']).to.equal('no-store');
  });

  it('allows any origin on every answer to a request with Origin, errors included, and not otherwise', async () => {
    const origin = { origin: 'https://shop.example' };
    for (const path of ['/api/public/catalogue', '/api/public/catalogue/NOPE', '/api/public/catalogue?limit=0', '/nope']) {
      expect((await send(app.url, path, { headers: origin })).headers['access-control-allow-origin'], path).to.equal('*');
    }
    expect((await send(app.url, '/api/public/catalogue')).headers['access-control-allow-origin']).to.equal(undefined);
  });

  it('says Vary: Origin on every answer, since the CORS headers depend on Origin (issue 17, finding 8)', async () => {
    for (const path of ['/api/public/catalogue', '/api/public/catalogue/RG-100', '/nope']) {
      for (const headers of [{}, { origin: 'https://shop.example' }] as Record<string, string>[]) {
        const vary = String((await send(app.url, path, { headers })).headers['vary'] ?? '');
        expect(vary.split(/\s*,\s*/).map((v) => v.toLowerCase()), `${path} ${JSON.stringify(headers)}`).to.include('origin');
      }
    }
  });

  it('answers a JSON 500 with the security and CORS headers even when building the error answer fails (issue 17, finding 6)', async () => {
    const res = await send(app.url, '/unanswerable', { headers: { origin: 'https://shop.example' } });
    expect(res.status).to.equal(500);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(res.json()).to.deep.equal({ detail: 'Internal Server Error' });
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('answers the preflight of the price operation with 204 allowing POST and Content-Type', async () => {
    const res = await send(app.url, '/api/public/configurator/price', {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).to.equal(204);
    expect(res.headers['access-control-allow-origin']).to.equal('*');
    expect(res.headers['access-control-allow-methods']).to.include('POST');
    expect(res.headers['access-control-allow-headers']).to.match(/content-type/i);
  });

  it('sends the security headers on every answer', async () => {
    for (const path of ['/api/public/catalogue', '/nope']) {
      const res = await send(app.url, path);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['x-frame-options']).to.equal('DENY');
      expect(res.headers['referrer-policy']).to.equal('no-referrer');
      expect(res.headers['content-security-policy']).to.include("default-src 'none'");
    }
  });

  it('serves a cached GET answer without querying the store until the read-model position moves', async () => {
    const path = '/api/public/catalogue?sort=price_asc&limit=3';
    const first = await send(app.url, path);
    const queries = app.store.queries;
    const again = await send(app.url, `/api/public/catalogue?limit=3&sort=price_asc&unknown=1`);
    expect(app.store.queries).to.equal(queries);
    expect(again.text).to.equal(first.text);
    await app.store.write('watches', [{ delete: { _id: 'en:HE-100', position: 60 } }]);
    expect((await send(app.url, path)).text).to.equal(first.text);
    await putAll(app.store, 'checkpoints', [checkpoint('watches', 60), checkpoint('serials', 60)]);
    await app.clock.refresh();
    const moved = await send(app.url, path);
    expect(moved.headers['x-read-model-position']).to.equal('60');
    expect(moved.json().watches[0].reference).to.equal('RG-100');
    expect(moved.headers['etag']).not.to.equal(first.headers['etag']);
  });

  it('answers 500 with nothing internal when the store fails', async () => {
    app.store.failWith = new Error('connection string mongodb://secret@db');
    try {
      const res = await send(app.url, '/api/public/verify/AUR-0001');
      expect(res.status).to.equal(500);
      expect(res.json()).to.deep.equal({ detail: 'Internal Server Error' });
    } finally {
      app.store.failWith = null;
    }
  });

  // Which paths the general limit counts is its own decision (rate-limit/public-path.ts, rate-limit-*.test.ts).
  it('hands every request to the general limit, before the answer cache, and verifications only to the verification limit', async () => {
    await send(app.url, '/api/public/catalogue/RG-100');
    seen.general.length = 0;
    seen.verify.length = 0;
    await send(app.url, '/api/public/verify/AUR-0001');
    await send(app.url, '/api/public/nope');
    await send(app.url, '/llms.txt');
    await send(app.url, '/api/public/catalogue/RG-100');
    expect(seen.general).to.deep.equal(['/api/public/verify/AUR-0001', '/api/public/nope', '/llms.txt', '/api/public/catalogue/RG-100']);
    expect(seen.verify).to.deep.equal(['/api/public/verify/AUR-0001']);
  });

  it('mounts the extra routes beside the operations', async () => {
    const res = await send(app.url, '/llms.txt');
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('# Maison Test');
  });
});
