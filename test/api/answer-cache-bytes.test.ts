/**
 * The answer caches are bounded by bytes as well as by entries (`ANSWER_CACHE_MAX_BYTES`, README.md "Settings"): a
 * client that asks many distinct requests (a catalogue page per `min_price`, an MCP call per unknown argument) makes
 * each cache hold at most that many bytes of answers and keys, far fewer than its 2000 entries would. With the demo
 * catalogue, 2000 of its largest catalogue pages held about 59 MB over HTTP and 125 MB over MCP before.
 */
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';
import { send } from '../support/http.ts';
import { postMcp, toolCall } from '../support/mcp-client.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/** Twenty distinct requests that each answer the same full page: their answers hold far more than the bound. */
const CALLS = 20;
const page = (i: number) => `/api/public/catalogue?limit=100&lang=fr&min_price=0.000${String(i).padStart(3, '0')}`;

describe('answer caches bounded by bytes', () => {
  let app: TestApp;
  afterEach(async () => { await app.close(); });

  /** Whether asking again reads the store (the answer was not kept) or not (it was). */
  const readsAgain = async (ask: () => Promise<unknown>) => {
    const queries = app.store.queries;
    await ask();
    return app.store.queries !== queries;
  };

  it('drops the least recently used answers once their bytes pass the bound, over HTTP and MCP, and keeps the recent ones', async () => {
    app = await startTestApp({}, { ANSWER_CACHE_MAX_BYTES: '0' });
    const size = Buffer.byteLength((await send(app.url, page(0))).text);
    const mcpSize = Buffer.byteLength((await postMcp(app.url, toolCall('search_catalogue', { limit: 100, lang: 'fr', n: 0 }))).text);
    await app.close();
    // Room for about five answers (and their keys) in each cache: twenty do not fit.
    app = await startTestApp({}, { ANSWER_CACHE_MAX_BYTES: String(5 * (mcpSize + 1_000)) });
    expect(CALLS * size, 'the HTTP answers exceed the bound').to.be.greaterThan(5 * (mcpSize + 1_000) + 1);
    const mcp = (i: number) => () => postMcp(app.url, toolCall('search_catalogue', { limit: 100, lang: 'fr', n: i }, i));
    for (let i = 1; i <= CALLS; i++) {
      expect((await send(app.url, page(i))).status).to.equal(200);
      expect((await mcp(i)()).status).to.equal(200);
    }
    expect(await readsAgain(() => send(app.url, page(CALLS))), 'the last page is kept').to.equal(false);
    expect(await readsAgain(mcp(CALLS)), 'the last call is kept').to.equal(false);
    expect(await readsAgain(() => send(app.url, page(1))), 'the first page is dropped').to.equal(true);
    expect(await readsAgain(mcp(1)), 'the first call is dropped').to.equal(true);
  });

  it('keeps nothing with a bound of 0; by default the bound is 16 MiB, and an answer is kept', async () => {
    expect(loadConfig({}).ANSWER_CACHE_MAX_BYTES).to.equal(16 * 1024 * 1024);
    app = await startTestApp({}, { ANSWER_CACHE_MAX_BYTES: '0' });
    await send(app.url, page(1));
    expect(await readsAgain(() => send(app.url, page(1)))).to.equal(true);
    await postMcp(app.url, toolCall('search_catalogue', { limit: 1 }));
    expect(await readsAgain(() => postMcp(app.url, toolCall('search_catalogue', { limit: 1 })))).to.equal(true);
    await app.close();
    app = await startTestApp();
    await send(app.url, page(1));
    expect(await readsAgain(() => send(app.url, page(1)))).to.equal(false);
  });
});
