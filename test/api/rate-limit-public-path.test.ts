/**
 * A public path is matched the same way by the routes and by the limits (docs/api.md "Rate limits"; issue 17,
 * finding 1): no spelling of a public request escapes the general limit, whether the router serves it (letter case,
 * trailing slash, HEAD) or not (percent-encoded letters or slashes).
 */
import { expect } from 'chai';
import { send, type TestRequest } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

/** Each spelling, and how the router answers it. */
const SPELLINGS: [string, TestRequest, number][] = [
  ['/Api/public/catalogue', {}, 200],
  ['/API/PUBLIC/CATALOGUE?n=1', {}, 200],
  ['/api/public/catalogue/', {}, 200],
  ['/Api/Public/Catalogue/RG-100/', {}, 200],
  ['/api/public/catalogue', { method: 'HEAD' }, 200],
  ['/API/public/status', { method: 'HEAD' }, 200],
  ['/Api/public/configurator/price', { method: 'OPTIONS' }, 204],
  ['/API/public/configurator/price', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }, 422],
  ['/api/%70ublic/catalogue', {}, 404],
  ['/%61pi/public/catalogue', {}, 404],
  ['/api/%50UBLIC/catalogue', {}, 404],
  ['/api/public%2Fcatalogue', {}, 404],
  ['/api%2fpublic/catalogue', {}, 404],
  ['/api/public', {}, 404],
];

describe('public paths as the limits count them', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const remaining = async (url: string) => Number((await send(url, '/api/public/status')).headers['x-ratelimit-remaining']);

  for (const [path, request, status] of SPELLINGS) {
    it(`counts ${request.method ?? 'GET'} ${path} against the general limit (answered ${status})`, async () => {
      api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
      const before = await remaining(api.url);
      const answer = await send(api.url, path, request);
      expect(answer.status).to.equal(status);
      // The status request after it, and the spelling itself: two requests fewer.
      expect(await remaining(api.url)).to.equal(before - 2);
      if (status !== 404) expect(answer.headers['x-ratelimit-limit']).to.equal('1000');
    });
  }

  it('refuses the request past the limit whatever the letter case (the route answered every one before)', async () => {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    const codes = [];
    for (const path of ['/Api/public/catalogue?n=1', '/API/public/catalogue?n=2', '/api/PUBLIC/collections', '/api/public/CATALOGUE?n=3']) {
      codes.push((await send(api.url, path)).status);
    }
    expect(codes).to.deep.equal([200, 200, 200, 429]);
  });

  it('leaves paths that only look alike out of the general limit', async () => {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
    const before = await remaining(api.url);
    for (const path of ['/api/publicity', '/llms.txt', '/apis/public/catalogue']) await send(api.url, path);
    expect(await remaining(api.url)).to.equal(before - 1);
  });
});
