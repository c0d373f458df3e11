/**
 * The answer cache, an early middleware of the Koa app (read-api/cache/answer-cache.ts): a repeated GET is
 * answered from the bytes the operation's route produced, with the same headers, limits and metrics as the
 * route's own answer, and never across read-model positions or, for verifications, across clients.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { send, type TestResponse } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { checkpoint, loadFixtureCatalogue, putAll } from './support/catalogue-fixture.ts';
import { readsThrough } from '../support/reads-through.ts';
import { instrumentReadStore } from './support/instrumented-read-store.ts';

/** Headers whose values legitimately differ between two answers to the same request. */
const PER_REQUEST = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

function comparable(headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_REQUEST.has(name)));
}

/** A read store that counts the documents read by id, so a test can tell whether an operation ran. */
function countingGets(store: ReadStore): { store: ReadStore; gets: () => number } {
  let gets = 0;
  const counted = Object.create(store) as ReadStore;
  counted.get = (...args: Parameters<ReadStore['get']>) => {
    gets += 1;
    return store.get(...args);
  };
  return { store: readsThrough(counted), gets: () => gets };
}

describe('answer cache in the Koa chain', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const start = async (env: Record<string, string> = {}, readStore?: ReadStore) => {
    let store = readStore;
    if (store === undefined) {
      store = createMemoryReadStore();
      await loadFixtureCatalogue(store);
    }
    api = await startReadApiUnderTest({ env, readStore: store });
    return api;
  };

  const GETS = [
    '/api/public/catalogue?sort=price_desc&lang=fr',
    '/api/public/catalogue/RG-200',
    '/api/public/collections',
    '/api/public/configurator/options/regate',
  ];

  it('answers a repeated GET with the very status, headers and bytes the route answered it with', async () => {
    const { url } = await start();
    for (const path of GETS) {
      for (const headers of [{}, { origin: 'https://shop.example' }] as Record<string, string>[]) {
        const first = await send(url, path, { headers });
        const again = await send(url, path, { headers });
        expect(again.status, path).to.equal(first.status);
        expect(again.text, path).to.equal(first.text);
        expect(comparable(again.headers), path).to.deep.equal(comparable(first.headers));
        expect(Number(again.headers['x-ratelimit-remaining']), path).to.equal(Number(first.headers['x-ratelimit-remaining']) - 1);
      }
    }
  });

  it('answers a repeated GET, and a HEAD of it, of every public GET (a verification too) without asking the read store again', async () => {
    const store = instrumentReadStore(createMemoryReadStore());
    await loadFixtureCatalogue(store);
    const { url } = await start({}, store);
    for (const path of [...GETS, '/api/public/verify/AUR-0001']) {
      await send(url, path);
      const queries = store.queries;
      expect(queries, `${path} read the store once`).to.be.above(0);
      expect((await send(url, path)).status, path).to.equal(200);
      expect((await send(url, path, { method: 'HEAD' })).status, path).to.equal(200);
      expect(store.queries, `${path} again and HEAD: from the cache`).to.equal(queries);
      store.queries = 0;
    }
  });

  it('answers 304 with the same headers when the client holds the answer', async () => {
    const { url } = await start();
    const path = GETS[1]!;
    const first = await send(url, path);
    const throughKoa = await send(url, `${path}?lang=en`, { headers: { 'if-none-match': String(first.headers['etag']) } });
    const replayed = await send(url, path, { headers: { 'if-none-match': `W/${String(first.headers['etag'])}` } });
    expect(throughKoa.status).to.equal(304);
    expect(replayed.status).to.equal(304);
    expect(replayed.text).to.equal('');
    const names = (response: TestResponse) => Object.keys(comparable(response.headers)).sort();
    expect(names(replayed)).to.deep.equal(names(throughKoa));
  });

  it('answers a verification again to the same client with a fresh time, without asking the read store again', async () => {
    const counting = countingGets(createMemoryReadStore());
    await loadFixtureCatalogue(counting.store);
    const { url } = await start({ VERIFY_RATE_LIMIT_PER_MINUTE: '7' }, counting.store);
    const first = await send(url, '/api/public/verify/aur-0666?lang=fr');
    const gets = counting.gets();
    // The second answer is made in a later millisecond, so its time and its tag must differ from the first's.
    const firstMs = Date.parse(String(first.json<Record<string, unknown>>()['checked_at']));
    while (Date.now() <= firstMs) await sleep(1);
    const again = await send(url, '/api/public/verify/aur-0666?lang=fr');
    expect(counting.gets()).to.equal(gets);
    const { checked_at: firstTime, ...firstRest } = first.json<Record<string, unknown>>();
    const { checked_at: againTime, ...againRest } = again.json<Record<string, unknown>>();
    expect(againRest).to.deep.equal(firstRest);
    expect(Date.parse(String(againTime))).to.be.above(Date.parse(String(firstTime)));
    expect(again.headers['cache-control']).to.equal('no-store');
    expect(again.headers['x-ratelimit-limit']).to.equal('7');
    expect(again.headers['x-ratelimit-remaining']).to.equal('5');
    expect(again.headers['etag']).to.be.a('string');
    expect(again.headers['etag']).not.to.equal(first.headers['etag']);
  });

  it('does not answer one client\'s verification from the cache to another client, nor drop it when another asks', async () => {
    const counting = countingGets(createMemoryReadStore());
    await loadFixtureCatalogue(counting.store);
    const { url } = await start({}, counting.store);
    await send(url, '/api/public/verify/AUR-0001', { localAddress: '127.0.0.2' });
    const gets = counting.gets();
    await send(url, '/api/public/verify/AUR-0001', { localAddress: '127.0.0.3' });
    expect(counting.gets()).to.equal(gets + 1);
    await send(url, '/api/public/verify/AUR-0001', { localAddress: '127.0.0.3' });
    expect(counting.gets(), 'the same client again: from the cache').to.equal(gets + 1);
    // The first client's kept answer is still its own: another client's asking must not show in its timing.
    await send(url, '/api/public/verify/AUR-0001', { localAddress: '127.0.0.2' });
    expect(counting.gets(), 'the first client again: from the cache').to.equal(gets + 1);
  });

  it('answers HEAD from the cache with the GET answer\'s headers and no body', async () => {
    const { url } = await start();
    const path = GETS[2]!;
    const first = await send(url, path);
    const head = await send(url, path, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
    expect(comparable(head.headers)).to.deep.equal(comparable(first.headers));
  });

  it('stops answering from the cache once the read model moves', async () => {
    const { url, store } = await start();
    const path = '/api/public/catalogue/RG-100';
    const before = await send(url, path);
    await send(url, path);
    const [doc] = await store.find<WatchDoc>('watches', { _id: 'en:RG-100' });
    const changed: WatchDoc = { ...doc!, price_cents: 100, position: doc!.position + 100 };
    await store.write('watches', [{ put: changed }]);
    await putAll(store, 'checkpoints', [checkpoint('watches', 50), checkpoint('serials', 50)]);
    let after = await send(url, path);
    for (const deadline = Date.now() + 2_000; after.headers['x-read-model-position'] === before.headers['x-read-model-position'] && Date.now() < deadline;) {
      after = await send(url, path);
    }
    expect(after.headers['x-read-model-position']).to.equal('50');
    expect(after.text).not.to.equal(before.text);
    expect(after.headers['etag']).not.to.equal(before.headers['etag']);
  });

  it('counts cached answers against the limits and refuses them as the route does', async () => {
    const { url } = await start({ RATE_LIMIT_PER_MINUTE: '3', VERIFY_RATE_LIMIT_PER_MINUTE: '2' });
    const path = '/api/public/collections';
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await send(url, path)).status);
    const refused = await send(url, path);
    expect(codes).to.deep.equal([200, 200, 200]);
    expect(refused.status).to.equal(429);
    expect(refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 3 per 1 minute' });
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect(refused.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(refused.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('refuses a cached verification past its own limit with the verification message', async () => {
    const { url } = await start({ VERIFY_RATE_LIMIT_PER_MINUTE: '2' });
    const path = '/api/public/verify/AUR-0001';
    const codes = [];
    for (let i = 0; i < 2; i++) codes.push((await send(url, path)).status);
    const refused = await send(url, path);
    expect(codes).to.deep.equal([200, 200]);
    expect(refused.status).to.equal(429);
    expect(refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 2 per 1 minute' });
    expect(refused.headers['x-ratelimit-limit']).to.equal('2');
  });

  it('counts cached answers in the metrics under their route template', async () => {
    const { url, opsUrl } = await start();
    for (let i = 0; i < 3; i++) await send(url, '/api/public/catalogue/RG-300');
    const metrics = (await send(opsUrl, '/metrics')).text;
    const line = metrics.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/public/catalogue/:reference"') && l.includes('status="200"'));
    expect(line, metrics).to.match(/ 3$/);
  });
});
