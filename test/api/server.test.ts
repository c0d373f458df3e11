import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { startReadApi } from '../../read-api/server.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { send } from '../support/http.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { confirmAgain } from '../support/confirm-again.ts';
import { TEST_BRAND } from './support/test-app.ts';
import { closedWithin, trickle } from '../support/trickle.ts';
import { testSigningKeys } from '../support/signing-keys.ts';
import { readsThrough } from '../support/reads-through.ts';

describe('the read API server (public port + operations port)', () => {
  const urlOf = (address: AddressInfo | string | null) => `http://127.0.0.1:${(address as AddressInfo).port}`;

  it('serves the public operations with rate-limit headers, readiness on the ops port, and finishes in-flight requests on close', async () => {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    // A slow store keeps one request in flight while the server closes (its reads are slowed before the API takes
    // its first snapshot, which every request of the next few milliseconds reads through); the close starts once the request has
    // reached the store (not after a guessed 20 ms, which a loaded machine can outlast before the request arrives).
    const get = store.get.bind(store);
    let reachedStore: () => void = () => {};
    const inStore = new Promise<void>((resolve) => { reachedStore = resolve; });
    store.get = (async (collection: never, id: string) => {
      reachedStore();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return get(collection, id);
    }) as typeof store.get;
    readsThrough(store);
    const api = await startReadApi({
      config: loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1' }), logger: createLogger('silent', 'test'),
      readStore: store, brand: TEST_BRAND, signingKeys: await testSigningKeys(),
    });
    // Confirmed again once the API runs, as by a live projector: the registry is fresh for the verification below.
    await confirmAgain(store);
    await api.refreshReadModels();
    const publicUrl = urlOf(api.server.address());
    const opsUrl = urlOf(api.opsServer.address());
    const status = await send(publicUrl, '/api/public/status');
    expect(status.json().read_model.position).to.equal(40);
    expect(status.headers['x-ratelimit-limit']).to.equal('60');
    const ready = await send(opsUrl, '/readyz');
    expect(ready.status).to.equal(200);

    const inFlight = send(publicUrl, '/api/public/verify/AUR-0001');
    await inStore;
    await api.close();
    expect((await inFlight).json().verification_status).to.equal('AUTHENTIC');
    let refused = false;
    await send(publicUrl, '/api/public/status').catch(() => { refused = true; });
    expect(refused).to.equal(true);
  });

  describe('operator ports (issue 17, findings 2, 5 and 8)', function () {
    this.timeout(20_000);
    const startWith = async (env: Record<string, string>, requestTimeoutMs?: number) => {
      const store = createMemoryReadStore();
      await loadFixtureCatalogue(store);
      return { store, api: await startReadApi({
        config: loadConfig({ PORT: '0', OPS_PORT: '0', ...env }), logger: createLogger('silent', 'test'), readStore: store, brand: TEST_BRAND,
        signingKeys: await testSigningKeys(),
        ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      }) };
    };

    it('listens for operators on loopback by default, whatever HOST the public port uses', async () => {
      const { api } = await startWith({ HOST: '0.0.0.0' });
      try {
        expect((api.server.address() as AddressInfo).address).to.equal('0.0.0.0');
        expect((api.opsServer.address() as AddressInfo).address).to.equal('127.0.0.1');
      } finally {
        await api.close();
      }
    });

    it('cuts a trickled request head on the operations port within the request timeout', async () => {
      const { api } = await startWith({ HOST: '127.0.0.1' }, 1_500);
      const slow = trickle(urlOf(api.opsServer.address()), 'GET /metrics HTTP/1.1\r\nHost: ops\r\nX-Slow: ', 'a');
      try {
        expect(await closedWithin(slow, 4_000), 'a trickled head').to.be.a('number');
      } finally {
        slow.stop();
        await api.close();
      }
    });

    it('says the read store is unreachable without repeating its error text, and does not tell the Node version', async () => {
      const { store, api } = await startWith({ HOST: '127.0.0.1' });
      try {
        store.ping = async () => { throw new Error('connect ECONNREFUSED mongodb://watchcat:s3cret@db.internal:27017'); };
        const ready = await send(urlOf(api.opsServer.address()), '/readyz');
        expect(ready.status).to.equal(503);
        expect(ready.json().checks.read_store).to.equal('unreachable');
        expect(ready.text).not.to.match(/s3cret|db\.internal|ECONNREFUSED/);
        const metrics = (await send(urlOf(api.opsServer.address()), '/metrics')).text;
        expect(metrics).to.include('process_cpu_seconds_total');
        expect(metrics).not.to.include('nodejs_version_info');
        expect(metrics).not.to.include(process.version);
      } finally {
        await api.close();
      }
    });
  });
});
