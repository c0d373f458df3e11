/**
 * Issue 28, items 1 to 3 (CONTRACT.md, "Honest answers"), through the real read API (public and operations ports)
 * and the official MCP client: a read model that was never built is never served; a verification is answered only
 * from a serials model confirmed at the event store's head within READ_MODEL_MAX_LAG_SECONDS, cached answers
 * included; a store that cannot be reached gives 503 with Retry-After, never another 5xx, and after the bound no
 * cached verification. Every expected status, header and text is the contract's, written out here.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { ReadStoreUnavailableError, type ReadStore } from '../../shared/ports/read-store.ts';
import { send } from '../support/http.ts';
import { connectedClient } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { checkpoint, loadFixtureCatalogue, putAll } from './support/catalogue-fixture.ts';

const PREPARING = 'The catalogue is being prepared; try again shortly';
const REGISTRY = 'The registry cannot be checked right now; try again shortly';
const READING_OPERATIONS = [
  '/api/public/catalogue', '/api/public/catalogue/RG-100', '/api/public/collections', '/api/public/configurator/options/regate',
];

/** A checkpoint whose projector last confirmed the head `secondsAgo` seconds ago. */
const confirmedAgo = (name: string, position: number, secondsAgo: number) =>
  ({ ...checkpoint(name, position), confirmed: { head: position, at: new Date(Date.now() - secondsAgo * 1000).toISOString() } });

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

  it('answers a verification only from a registry confirmed within the bound, the cached answer included, and over MCP alike', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    api = await startReadApiUnderTest({ readStore: store, env: { READ_MODEL_MAX_LAG_SECONDS: '5' } });
    const path = '/api/public/verify/AUR-0666';
    const first = await send(api.url, path);
    expect(first.json().verification_status).to.equal('STOLEN');
    expect((await send(api.url, path)).json().verification_status, 'answered again (from the answer cache)').to.equal('STOLEN');

    // The projector stopped: its last confirmation is now 6 s old, past the 5 s bound.
    await putAll(store, 'checkpoints', [confirmedAgo('serials', 40, 6)]);
    await api.running.refreshReadModels();
    const refused = await send(api.url, path);
    expect(refused.status).to.equal(503);
    expect(refused.json()).to.deep.equal({ detail: REGISTRY });
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect((await send(api.url, '/api/public/catalogue/RG-100')).status, 'a built model is still served').to.equal(200);
    const status = (await send(api.url, '/api/public/status')).json();
    expect(status.status).to.equal('degraded');
    const serials = status.read_model.projections.find((p: { name: string }) => p.name === 'serials');
    expect(serials).to.include({ name: 'serials', position: 40, built: true, fresh: false });
    expect(serials.lag_seconds).to.be.at.least(6);
    expect((await send(api.opsUrl, '/metrics')).text).to.match(/^read_model_fresh\{projection="serials"\} 0$/m);

    const client = await connectedClient(api.url);
    try {
      const result = await client.callTool({ name: 'verify_serial', arguments: { serial: 'AUR-0666' } });
      expect(result.isError).to.equal(true);
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal({ detail: REGISTRY });
    } finally {
      await client.close();
    }

    // Confirmed again: answered again.
    await putAll(store, 'checkpoints', [confirmedAgo('serials', 40, 0)]);
    await api.running.refreshReadModels();
    expect((await send(api.url, path)).json().verification_status).to.equal('STOLEN');
  });

  it('answers 503, never another 5xx, when the store cannot be reached, and no cached verification once the bound has passed', async function () {
    const inner = createMemoryReadStore();
    await loadFixtureCatalogue(inner);
    const { store, cut } = partitionable(inner);
    api = await startReadApiUnderTest({ readStore: store, env: { READ_MODEL_MAX_LAG_SECONDS: '1' } });
    const verify = '/api/public/verify/AUR-0001';
    expect((await send(api.url, verify)).json().verification_status).to.equal('AUTHENTIC');
    const cachedDetail = await send(api.url, '/api/public/catalogue/RG-100');
    expect(cachedDetail.status).to.equal(200);

    cut.off = true;
    const uncached = await send(api.url, '/api/public/catalogue?sort=price_desc');
    expect(uncached.status, 'a request the cache cannot answer').to.equal(503);
    expect(uncached.headers['retry-after']).to.match(/^\d+$/);
    // Past the bound, nothing confirms the registry any more: the cached AUTHENTIC is not given.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const afterBound = await send(api.url, verify);
    expect(afterBound.status).to.equal(503);
    expect(afterBound.json()).to.deep.equal({ detail: REGISTRY });
    expect((await send(api.opsUrl, '/readyz')).status).to.equal(503);
    expect(api.errors(), 'nothing logged as a server error').to.deep.equal([]);

    cut.off = false;
    await putAll(inner, 'checkpoints', [confirmedAgo('serials', 40, 0)]);
    await api.running.refreshReadModels();
    expect((await send(api.url, verify)).json().verification_status).to.equal('AUTHENTIC');
  });
});
