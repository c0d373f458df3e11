/**
 * Repeated MCP tool calls (issue 24, bench goal): a repeated `tools/call` of a cacheable operation is answered from
 * the answer the SDK gave the same call, with the caller's own id, byte for byte what the SDK answers it, only while
 * the projections it read have not moved; error results, verifications and calls with other protocol headers are
 * always the SDK's. Whether the read store was asked tells a kept answer from a new one.
 */
import { expect } from 'chai';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { send } from '../support/http.ts';
import { postMcp, toolCall } from '../support/mcp-client.ts';
import { checkpoint, putAll } from './support/catalogue-fixture.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

describe('MCP answers to repeated tool calls', () => {
  let app: TestApp;
  beforeEach(async () => { app = await startTestApp(); });
  afterEach(async () => { await app.close(); });

  const getWatch = (id: number | string, reference = 'RG-100') => postMcp(app.url, toolCall('get_watch', { reference, lang: 'fr' }, id));

  it('answers a repeated get_watch without reading the store, with the caller\'s id, byte for byte what the SDK answers it', async () => {
    const first = await getWatch(1);
    expect(first.status, first.text).to.equal(200);
    const queries = app.store.queries;
    const again = await getWatch('call-2');
    expect(app.store.queries, 'no read: the kept answer').to.equal(queries);
    expect(again.headers['content-type']).to.equal(first.headers['content-type']);
    // What the SDK itself answers the same call, from a server that never saw it.
    const fresh = await startTestApp();
    try {
      const bySdk = await postMcp(fresh.url, toolCall('get_watch', { reference: 'RG-100', lang: 'fr' }, 'call-2'));
      expect(again.text).to.equal(bySdk.text);
    } finally {
      await fresh.close();
    }
    expect(again.json<{ id: unknown }>().id).to.equal('call-2');
    expect((await getWatch(7)).json<{ id: unknown }>().id).to.equal(7);
  });

  it('answers anew once the projection the tool reads has moved', async () => {
    const price = async (id: number) => (await getWatch(id)).json<{ result: { structuredContent: { price_eur: number } } }>().result.structuredContent.price_eur;
    expect(await price(1)).to.equal(12500);
    const [doc] = await app.store.find<WatchDoc>('watches', { _id: 'fr:RG-100' });
    const moved: WatchDoc = { ...doc!, price_cents: 1_299_900, position: 60 };
    await app.store.write('watches', [{ put: moved }]);
    await putAll(app.store, 'checkpoints', [checkpoint('watches', 60)]);
    await app.clock.refresh();
    expect(await price(2)).to.equal(12999);
  });

  it('asks the SDK again for an error result, a verification, the status, and a call with other protocol headers', async () => {
    const asked = async (call: () => Promise<unknown>) => {
      const before = app.store.queries;
      await call();
      return app.store.queries > before;
    };
    await getWatch(1, 'NOPE-1');
    expect(await asked(() => getWatch(2, 'NOPE-1')), 'an isError result is not kept').to.equal(true);
    const verify = () => postMcp(app.url, toolCall('verify_serial', { serial: 'AUR-0001' }));
    await verify();
    expect(await asked(verify), 'a verification carries its own time').to.equal(true);
    const status = async () => (await postMcp(app.url, toolCall('get_status', {}))).json<{ result: { structuredContent: { status: string } } }>().result.structuredContent.status;
    expect(await status()).to.equal('ok');
    app.health.status = 'degraded';
    expect(await status(), 'the status is not an answer of the projections alone: never kept').to.equal('degraded');
    await getWatch(3);
    const jsonOnly = await postMcp(app.url, toolCall('get_watch', { reference: 'RG-100', lang: 'fr' }), { headers: { accept: 'application/json' } });
    expect(jsonOnly.status, 'the transport\'s own refusal, not the kept answer').to.equal(406);
    // A text/plain POST (which a web page sends cross-origin with no preflight) is refused as the transport refuses it.
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const plain = await postMcp(app.url, toolCall('get_watch', { reference: 'RG-100', lang: 'fr' }), { headers: { 'content-type': contentType } });
      expect(plain.status, `${contentType}: the transport's 415, not the kept answer`).to.equal(415);
    }
    // The HTTP route is unaffected by what MCP keeps.
    expect((await send(app.url, '/api/public/catalogue/RG-100?lang=fr')).status).to.equal(200);
  });
});
