/**
 * docs/api.md: "`Access-Control-Allow-Origin: *` on every public answer to a request that carries an `Origin`
 * header, errors included". A browser shows a client none of an answer that lacks it, so an error without it reads
 * as a network failure. Each error is provoked over HTTP on the whole server (rate limits included) and checked by
 * its status, body and header only, whichever middleware answers it.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { send, type TestResponse } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { readsThrough } from '../support/reads-through.ts';

const ORIGIN = { origin: 'https://shop.example' };

function expectCors(response: TestResponse, status: number, detail?: string): void {
  expect(response.status, response.text).to.equal(status);
  // The contract words every error but the 500, which only has to say nothing of its cause.
  if (detail === undefined) expect(response.json().detail).to.be.a('string').and.not.include('read store down');
  else expect(response.json()).to.deep.equal({ detail });
  expect(response.headers['access-control-allow-origin'], `${status} answer`).to.equal('*');
}

describe('CORS on error answers', function () {
  const open: ReadApiUnderTest[] = [];
  afterEach(async function () {
    await Promise.all(open.splice(0).map((api) => api.close()));
  });

  it('allows any origin on 413 (body too large), 405 (wrong method) and 500 (a read store that fails)', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    const failing: ReadStore = readsThrough({ ...store, get: () => Promise.reject(new Error('read store down')) });
    const api = await startReadApiUnderTest({ readStore: failing });
    open.push(api);

    const big = `{"collection":"${'x'.repeat(17 * 1024)}"}`;
    expectCors(await send(api.url, '/api/public/configurator/price', { method: 'POST', headers: { ...ORIGIN, 'content-type': 'application/json' }, body: big }), 413, 'Request body too large');
    expectCors(await send(api.url, '/api/public/catalogue', { method: 'DELETE', headers: ORIGIN }), 405, 'Method Not Allowed');
    expectCors(await send(api.url, '/api/public/catalogue/RG-100', { headers: ORIGIN }), 500);
  });

  it('allows any origin on 429 (past the rate limit)', async function () {
    const api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    open.push(api);
    for (let i = 0; i < 2; i++) expect((await send(api.url, '/api/public/collections', { headers: ORIGIN })).status).to.equal(200);
    expectCors(await send(api.url, '/api/public/collections', { headers: ORIGIN }), 429, 'Rate limit exceeded: 2 per 1 minute');
  });
});
