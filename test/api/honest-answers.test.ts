/**
 * Issue 28, items 1 to 3 (docs/api.md, "Honest answers"), through the real read API (public and operations ports)
 * and the official MCP client: a read model that was never built is never served; a verification is answered only
 * from a serials model this process saw confirmed at the event store's head within VERIFY_MAX_LAG_SECONDS (issue 40:
 * its own bound, on its own clock), cached answers included, and says how old its data is; status is degraded past
 * READ_MODEL_MAX_LAG_SECONDS; a store that cannot be reached gives 503 with Retry-After, never another 5xx, and after
 * the bound no cached verification. Every expected status, header and text is the contract's, written out here.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { ReadStoreUnavailableError, type ReadStore } from '../../shared/ports/read-store.ts';
import { send } from '../support/http.ts';
import { connectedClient, postMcp, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { until } from '../support/until.ts';
import { checkpoint, loadFixtureCatalogue, putAll } from './support/catalogue-fixture.ts';
import { confirmAgain } from '../support/confirm-again.ts';

const PREPARING = 'The catalogue is being prepared; try again shortly';
const REGISTRY = 'The registry cannot be checked right now; try again shortly';
const READING_OPERATIONS = [
  '/api/public/catalogue', '/api/public/catalogue/RG-100', '/api/public/collections', '/api/public/configurator/options/regate',
];

/** `store`, cut off from this process while `cut.off`: its snapshots and reads fail as an unreachable engine's do. */
function partitionable(store: ReadStore): { store: ReadStore; cut: { off: boolean } } {
  const cut = { off: false };
  const failing = <T>(read: () => Promise<T>) => (cut.off ? Promise.reject(new ReadStoreUnavailableError(new Error('ECONNRESET'))) : read());
  const view = (inner: ReadStore | Awaited<ReturnType<ReadStore['snapshot']>>) => ({
    find: (c: never, f: never, o?: never) => failing(() => inner.find(c, f, o)),
    count: (c: never, f: never) => failing(() => inner.count(c, f)),
    get: (c: never, id: string) => failing(() => inner.get(c, id)),
    getMany: (c: never, ids: string[]) => failing(() => inner.getMany(c, ids)),
  });
  return {
    cut,
    store: {
      ...store, ...view(store),
      snapshot: () => failing(async () => {
        const snapshot = await store.snapshot();
        return { ...view(snapshot), control: snapshot.control };
      }),
      ping: () => failing(() => store.ping()),
    } as ReadStore,
  };
}

describe('honest answers (issue 28)', function () {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('serves no read model that was never built: 503 with Retry-After on every operation that reads, /readyz 503, status degraded', async function () {
    // A replica started before any projector ran: an empty store, no checkpoint at all.
    api = await startReadApiUnderTest({ readStore: createMemoryReadStore() });
    for (const path of READING_OPERATIONS) {
      const answer = await send(api.url, path);
      expect(answer.status, path).to.equal(503);
      expect(answer.json(), path).to.deep.equal({ detail: PREPARING });
      expect(Number(answer.headers['retry-after']), path).to.be.within(1, 60);
    }
    const verify = await send(api.url, '/api/public/verify/AUR-2019-000777');
    expect(verify.status, 'never NOT_FOUND from an empty registry').to.equal(503);
    expect(verify.json()).to.deep.equal({ detail: REGISTRY });
    const french = await send(api.url, '/api/public/catalogue?lang=fr');
    expect(french.json()).to.deep.equal({ detail: 'Le catalogue est en cours de préparation ; réessayez dans un instant' });
    expect((await send(api.opsUrl, '/readyz')).status).to.equal(503);
    const status = await send(api.url, '/api/public/status');
    expect(status.status).to.equal(200);
    expect(status.json().status).to.equal('degraded');
    expect(status.json().read_model.projections).to.deep.equal([]);
  });

  it('serves a model whose checkpoint exists only once its projector confirmed a head', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    // A lease was taken and its checkpoint opened, but no run reached the head yet.
    const opened = { ...checkpoint('watches', 0), confirmed: null };
    await putAll(store, 'checkpoints', [opened]);
    api = await startReadApiUnderTest({ readStore: store });
    expect((await send(api.url, '/api/public/catalogue')).status).to.equal(503);
    expect((await send(api.url, '/api/public/collections')).status, 'the collections are built').to.equal(200);
    const ready = await send(api.opsUrl, '/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.json().checks.unbuilt_projections).to.deep.equal(['watches']);
  });

  it('gives no cached answer of a model that is no longer built: its checkpoint lost its confirmation at the same position', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    api = await startReadApiUnderTest({ readStore: store });
    const path = '/api/public/catalogue/RG-100';
    expect((await send(api.url, path)).status).to.equal(200);
    expect((await send(api.url, path)).status, 'answered again (from the answer cache)').to.equal(200);

    // Its checkpoint reset by hand: the same generation and position (the answer's stamp is unchanged), unconfirmed.
    const [watches] = (await store.readControl()).filter((doc) => doc._id === checkpoint('watches', 0)._id);
    const reset = { ...checkpoint('watches', watches!['position'] as number), confirmed: null };
    await putAll(store, 'checkpoints', [reset]);
    await api.running.refreshReadModels();
    const refused = await send(api.url, path);
    expect(refused.status).to.equal(503);
    expect(refused.json()).to.deep.equal({ detail: PREPARING });
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
  });

  // Issue 40 changed this test: the projector "stops" by confirming no more (this process's own clock runs the bounds
  // out), where it used to write a confirmation dated 6 s back; the verification's bound is its own.
  it('answers a verification only from a registry seen confirmed within its bound, the cached answer included, and over MCP alike', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    const { url } = api = await startReadApiUnderTest({ readStore: store, env: { VERIFY_MAX_LAG_SECONDS: '2', READ_MODEL_MAX_LAG_SECONDS: '3' } });
    const path = '/api/public/verify/AUR-0666';
    // Whole seconds: at most the 2 s bound, rounded up once the answer was read (a second more on a stalled machine).
    const AGES = ['0', '1', '2', '3'];
    // Over POST /mcp, verify_serial says how old its data is as the HTTP operation does; other tools do not.
    const watch = await postMcp(url, toolCall('get_watch', { reference: 'RG-100' }));
    expect(watch.status).to.equal(200);
    expect(watch.headers['x-data-age'], 'an answer that needs no fresh read model').to.equal(undefined);
    await confirmAgain(store);
    await api.running.refreshReadModels();
    const overMcp = await postMcp(url, toolCall('verify_serial', { serial: 'AUR-0666' }));
    expect(overMcp.json<{ result: { structuredContent: { verification_status: string } } }>().result.structuredContent.verification_status).to.equal('STOLEN');
    expect(overMcp.headers['x-data-age'], 'verify_serial over POST /mcp').to.be.oneOf(AGES);
    const first = await send(api.url, path);
    expect(first.json().verification_status).to.equal('STOLEN');
    expect(first.headers['x-data-age'], 'how old its data is').to.be.oneOf(AGES);
    const again = await send(api.url, path);
    expect(again.json().verification_status, 'answered again (from the answer cache)').to.equal('STOLEN');
    expect(again.headers['x-data-age']).to.be.oneOf(AGES);

    // The projector stopped: nothing confirms the registry again, and the verification's 2 s run out.
    let refused = await send(api.url, path);
    await until('the verification refused', async () => (refused = await send(url, path)).status !== 200, 10_000);
    expect(refused.status).to.equal(503);
    expect(refused.json()).to.deep.equal({ detail: REGISTRY });
    expect(refused.headers['x-data-age'], 'a refusal says no age').to.equal(undefined);
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect((await send(api.url, '/api/public/catalogue/RG-100')).status, 'a built model is still served').to.equal(200);
    // Then the catalogue's 3 s: status degraded.
    let status = (await send(api.url, '/api/public/status')).json();
    await until('status degraded', async () => (status = (await send(url, '/api/public/status')).json()).status === 'degraded', 10_000);
    const serials = status.read_model.projections.find((p: { name: string }) => p.name === 'serials');
    expect(serials).to.include({ name: 'serials', position: 40, built: true, fresh: false });
    expect(serials.lag_seconds).to.be.above(3);
    expect((await send(api.opsUrl, '/metrics')).text).to.match(/^read_model_fresh\{projection="serials"\} 0$/m);

    const client = await connectedClient(api.url);
    try {
      const result = await client.callTool({ name: 'verify_serial', arguments: { serial: 'AUR-0666' } });
      expect(result.isError).to.equal(true);
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal({ detail: REGISTRY });
      // A tool result reaches the agent without the HTTP headers: when to try again rides in `_meta`, as HTTP says it.
      expect(result._meta, 'when to try again').to.deep.equal({ retry_after: Number(refused.headers['retry-after']) });
      const unknown = await client.callTool({ name: 'get_watch', arguments: { reference: 'RG-404' } });
      expect(unknown.isError, 'an unknown reference').to.equal(true);
      expect(unknown._meta, 'a 404 is no refusal: nothing to try again').to.equal(undefined);
    } finally {
      await client.close();
    }

    // Confirmed again: answered again.
    await confirmAgain(store);
    await api.running.refreshReadModels();
    expect((await send(api.url, path)).json().verification_status).to.equal('STOLEN');
  });

  it('answers 503, never another 5xx, when the store cannot be reached, and no cached verification once the bound has passed', async function () {
    const inner = createMemoryReadStore();
    await loadFixtureCatalogue(inner);
    const { store, cut } = partitionable(inner);
    const { url } = api = await startReadApiUnderTest({ readStore: store, env: { VERIFY_MAX_LAG_SECONDS: '2' } });
    const verify = '/api/public/verify/AUR-0001';
    expect((await send(api.url, verify)).json().verification_status).to.equal('AUTHENTIC');
    const cachedDetail = await send(api.url, '/api/public/catalogue/RG-100');
    expect(cachedDetail.status).to.equal(200);

    cut.off = true;
    const uncached = await send(api.url, '/api/public/catalogue?sort=price_desc');
    expect(uncached.status, 'a request the cache cannot answer').to.equal(503);
    expect(uncached.headers['retry-after']).to.match(/^\d+$/);
    // Past the bound, nothing confirms the registry any more: the cached AUTHENTIC is not given.
    let afterBound = await send(api.url, verify);
    await until('past the bound', async () => (afterBound = await send(url, verify)).status !== 200, 10_000);
    expect(afterBound.status).to.equal(503);
    expect(afterBound.json()).to.deep.equal({ detail: REGISTRY });
    expect((await send(api.opsUrl, '/readyz')).status).to.equal(503);
    expect(api.errors(), 'nothing logged as a server error').to.deep.equal([]);

    // Confirmed again after the cut, twice: the first confirmation seen may have happened any time since the last
    // poll that reached the store, before the cut; the second, after the poll that saw the first.
    cut.off = false;
    await confirmAgain(inner);
    await api.running.refreshReadModels();
    await confirmAgain(inner);
    await api.running.refreshReadModels();
    expect((await send(api.url, verify)).json().verification_status).to.equal('AUTHENTIC');
  });
});
