/**
 * What the operations' router sets up when the read API starts (read-api/routes.ts): the CORS preflight of each
 * operation, the spellings of a path it matches, and the headers of a refusal. Each test starts its own read API,
 * so that what the router builds at the start is run inside the test (the mutation tester attributes code run in a
 * `before` hook to one test only). Expected values: docs/api.md ("CORS": the price preflight allows POST and
 * Content-Type; "Honest answers": a refusal is a 503 with `Retry-After`) and the signed answers' `Accept-Signature`
 * request header, which a page on another site sends to any operation.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { REFUSAL_RETRY_AFTER_SECONDS } from '../../shared/read-model/public-api/answer-policy.ts';
import { send } from '../support/http.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';
import { until } from '../support/until.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';

const allowed = (header: unknown) => String(header).toLowerCase().split(/,\s*/);

describe('routes as the read API sets them up', function () {
  this.timeout(20_000);

  it('answers the preflight of the price operation allowing POST, and of a reading operation allowing GET, both with Content-Type, Accept-Signature and X-Min-Position', async () => {
    const api = await startReadApiUnderTest();
    try {
      const preflight = (path: string, method: string) => send(api.url, path, {
        method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': method, 'access-control-request-headers': 'content-type, accept-signature, x-min-position' },
      });
      const price = await preflight('/api/public/configurator/price', 'POST');
      expect(price.status).to.equal(204);
      expect(allowed(price.headers['access-control-allow-methods'])).to.include('post').and.not.include('get');
      expect(allowed(price.headers['access-control-allow-headers'])).to.include.members(['content-type', 'accept-signature', 'x-min-position']);
      expect(Number(price.headers['access-control-max-age']), 'the preflight is kept a while').to.be.above(0);
      const catalogue = await preflight('/api/public/catalogue', 'GET');
      expect(catalogue.status).to.equal(204);
      expect(allowed(catalogue.headers['access-control-allow-methods'])).to.include.members(['get', 'head']).and.not.include('post');
      expect(allowed(catalogue.headers['access-control-allow-headers'])).to.include.members(['content-type', 'accept-signature', 'x-min-position']);
    } finally {
      await api.close();
    }
  });

  it('matches an operation\'s path in any case and with a trailing slash, as the rate limits read it', async () => {
    const api = await startReadApiUnderTest();
    try {
      const plain = await send(api.url, '/api/public/collections');
      expect(plain.status).to.equal(200);
      for (const path of ['/API/Public/Collections', '/api/public/collections/']) {
        const answer = await send(api.url, path);
        expect(answer.status, path).to.equal(200);
        expect(answer.json(), path).to.deep.equal(plain.json());
      }
    } finally {
      await api.close();
    }
  });

  it('refuses with 503, the Retry-After the decision gave, JSON, and no-store so that no cache on the way keeps it', async () => {
    const api = await startReadApiUnderTest({ readStore: createMemoryReadStore() });
    try {
      const refused = await send(api.url, '/api/public/collections');
      expect(refused.status).to.equal(503);
      expect(refused.headers['retry-after']).to.equal(String(REFUSAL_RETRY_AFTER_SECONDS));
      expect(refused.headers['cache-control']).to.equal('no-store');
      expect(String(refused.headers['content-type'])).to.match(/^application\/json/);
    } finally {
      await api.close();
    }
  });

  it('answers status afresh each time: degraded once a projection is no longer fresh, though no position moved', async () => {
    // docs/api.md, "Honest answers": the other operations serve a built model that is not fresh; status is then
    // degraded. The status keeps no answer: one given while every model was fresh must not be given again after.
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    // Issue 40 changed how a projector stops here: it confirms no more, and this process's own clock runs the bound
    // out (it used to write a confirmation dated 6 s back).
    const api = await startReadApiUnderTest({ readStore: store, env: { READ_MODEL_MAX_LAG_SECONDS: '2' } });
    try {
      expect((await send(api.url, '/api/public/status')).json().status, 'every model seen confirmed just now').to.equal('ok');
      let status = (await send(api.url, '/api/public/status')).json();
      await until('status degraded', async () => (status = (await send(api.url, '/api/public/status')).json()).status === 'degraded', 10_000);
      expect(status.read_model.position, 'no position moved').to.equal(40);
    } finally {
      await api.close();
    }
  });
});
