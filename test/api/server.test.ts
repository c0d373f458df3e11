import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { startReadApi } from '../../read-api/server.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { send } from '../support/http.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { TEST_BRAND } from './support/test-app.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

describe('the read API server (public port + operations port)', () => {
  const urlOf = (address: AddressInfo | string | null) => `http://127.0.0.1:${(address as AddressInfo).port}`;

  it('serves the public operations with rate-limit headers, readiness on the ops port, and finishes in-flight requests on close', async () => {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    const api = await startReadApi({
      config: loadConfig({ PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1' }), logger: createLogger('silent', 'test'),
      readStore: store, brand: TEST_BRAND, signingKeys: await testSigningKeys(),
    });
    const publicUrl = urlOf(api.server.address());
    const opsUrl = urlOf(api.opsServer.address());
    const status = await send(publicUrl, '/api/public/status');
    expect(status.json().read_model.position).to.equal(40);
    expect(status.headers['x-ratelimit-limit']).to.equal('60');
    const ready = await send(opsUrl, '/readyz');
    expect(ready.status).to.equal(200);

    // A slow store keeps one request in flight while the server closes.
    const get = store.get.bind(store);
    store.get = (async (collection: never, id: string) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return get(collection, id);
    }) as typeof store.get;
    const inFlight = send(publicUrl, '/api/public/verify/AUR-0001');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await api.close();
    expect((await inFlight).json().verification_status).to.equal('AUTHENTIC');
    let refused = false;
    await send(publicUrl, '/api/public/status').catch(() => { refused = true; });
    expect(refused).to.equal(true);
  });
});
