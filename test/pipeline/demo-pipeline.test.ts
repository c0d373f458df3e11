/**
 * The whole pipeline as `npm start` wires it, with the projector's jobs on BullMQ and the rate limits in a real
 * Redis: commands go through the admin API and the command handlers, the projector turns the events into read
 * models, and the public API answers what docs/api.md says (shapes written from it by hand), in both languages, and
 * what the served OpenAPI document declares.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { DEMO_SERIALS } from '../../services/demo/serials.ts';
import { untilRegistryFresh } from '../support/registry-fresh.ts';
import { send, postJson, type TestResponse } from '../support/http.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { contractAnswers } from '../support/contract-answers.ts';
import { responseValidator, type ResponseValidator } from '../support/openapi-response-validator.ts';
import { describeMongo } from '../support/mongodb-leg.ts';

const ADMIN_KEY = 'pipeline-test-catalogue-key-0123456789';
const SERIALS_KEY = 'pipeline-test-serials-key-0123456789';

/**
 * The pipeline's tests over the read store that `readStoreSettings` configures (in memory when it names no MongoDB).
 */
function pipelineOver(suite: Mocha.Suite, timeoutMs: number, readStoreSettings: () => Record<string, string>): void {
  suite.timeout(timeoutMs);
  let redis: TestRedis;
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  let admin: string;
  const contract = contractAnswers();
  let servedDocument: ResponseValidator;

  /** GETs (or POSTs) a public path and checks the answer against the contract and the served OpenAPI document. */
  async function call(method: 'GET' | 'POST', template: string, path: string, body?: unknown): Promise<TestResponse> {
    const response = method === 'GET' ? await send(api, path) : await postJson(api, path, body);
    contract.check(method, template, response.status, response.json());
    servedDocument.check(method, template, response.status, response.json());
    return response;
  }

  async function adminCall(method: string, path: string, key: string, body?: unknown): Promise<number> {
    const response = await send(admin, path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, response.text).to.be.within(200, 201);
    return response.json<{ position: number }>().position;
  }

  /** Polls status until the API serves the read model at `position` or later. */
  async function until(position: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const status = (await send(api, '/api/public/status')).json<{ read_model: { position: number } }>();
      if (status.read_model.position >= position) return;
      await sleep(20);
    }
    throw new Error(`the API did not reach position ${position}`);
  }

  before(async () => {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-pipeline-'));
    const config = loadConfig({
      ...readStoreSettings(),
      DATA_DIR: dataDir, REDIS_URL: redis.url, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1',
      ADMIN_API_KEYS: `${ADMIN_KEY}:catalogue,${SERIALS_KEY}:serials`, RATE_LIMIT_PER_MINUTE: '100000',
      VERIFY_RATE_LIMIT_PER_MINUTE: '100000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000',
    });
    service = await startWatchcat(config, createLogger('silent', 'pipeline-test'));
    api = `http://127.0.0.1:${service.ports.public}`;
    admin = `http://127.0.0.1:${service.ports.admin}`;
    servedDocument = responseValidator((await send(api, '/.well-known/openapi-public.json')).json());
    await untilRegistryFresh(api);
  });

  after(async () => {
    await service?.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the seeded demo catalogue in both languages, every answer as the contract says and the OpenAPI document declares', async () => {
    for (const lang of ['en', 'fr'] as const) {
      const page = (await call('GET', '/api/public/catalogue', `/api/public/catalogue?lang=${lang}&limit=100`)).json();
      expect(page.total).to.be.at.least(60);
      expect(page.lang).to.equal(lang);
      const collections = (await call('GET', '/api/public/collections', `/api/public/collections?lang=${lang}`)).json();
      const counted = collections.collections.reduce((sum: number, c: { product_count: number }) => sum + c.product_count, 0);
      expect(counted).to.equal(page.total);
      const detail = (await call('GET', '/api/public/catalogue/{reference}', `/api/public/catalogue/aur-ch-001?lang=${lang}`)).json();
      expect(detail.reference).to.equal('AUR-CH-001');
      const options = (await call('GET', '/api/public/configurator/options/{collection}', `/api/public/configurator/options/tempo?lang=${lang}`)).json();
      expect(options.categories.map((c: { key: string }) => c.key)).to.include.members(['tachymeter', 'pushers']);
      const verified = (await call('GET', '/api/public/verify/{serial}', `/api/public/verify/${DEMO_SERIALS.stolen}?lang=${lang}`)).json();
      expect(verified.verification_status).to.equal('STOLEN');
      await call('GET', '/api/public/status', `/api/public/status?lang=${lang}`);
    }
    const french = (await call('GET', '/api/public/catalogue', '/api/public/catalogue?lang=fr&search=edition')).json();
    expect(french.total).to.be.greaterThan(0);
    await call('GET', '/api/public/catalogue/{reference}', '/api/public/catalogue/NOPE-1');
    await call('GET', '/api/public/catalogue', '/api/public/catalogue?limit=abc&sort=foo');
    await call('POST', '/api/public/configurator/price', '/api/public/configurator/price', { collection: 'tempo', model_ref: 'AUR-CH-001' });
    await call('POST', '/api/public/configurator/price', '/api/public/configurator/price', { collection: 'nope' });
  });

  it('shows a price change, a theft report and a withdrawal made through the admin API', async () => {
    const before = (await call('GET', '/api/public/collections', '/api/public/collections')).json();
    const tempoBefore = before.collections.find((c: { code: string }) => c.code === 'tempo');

    await adminCall('PUT', '/admin/watches/AUR-CH-001/price', ADMIN_KEY, { price_eur: 123456.78 });
    await adminCall('POST', `/admin/serials/${DEMO_SERIALS.authentic}/stolen`, SERIALS_KEY);
    const position = await adminCall('DELETE', '/admin/watches/AUR-CH-002', ADMIN_KEY);
    await until(position);

    const priced = await call('POST', '/api/public/configurator/price', '/api/public/configurator/price', { collection: 'tempo', model_ref: 'AUR-CH-001' });
    expect(priced.json().base_price_eur).to.equal(123456.78);
    const stolen = (await call('GET', '/api/public/verify/{serial}', `/api/public/verify/${DEMO_SERIALS.authentic}`)).json();
    expect(stolen).to.include({ verification_status: 'STOLEN', stolen: true });
    expect((await call('GET', '/api/public/catalogue/{reference}', '/api/public/catalogue/AUR-CH-002')).status).to.equal(404);

    const after = (await call('GET', '/api/public/collections', '/api/public/collections?lang=fr')).json();
    const tempoAfter = after.collections.find((c: { code: string }) => c.code === 'tempo');
    expect(tempoAfter.product_count).to.equal(tempoBefore.product_count - 1);
    const tempoWatches = (await call('GET', '/api/public/catalogue', '/api/public/catalogue?collection=TEMPO&sort=price_asc&limit=100')).json();
    const prices = tempoWatches.watches.map((w: { price_eur: number }) => w.price_eur);
    expect(tempoAfter.price_range_eur).to.deep.equal({ min: Math.min(...prices), max: Math.max(...prices) });
  });

  it('a rebuild of the whole history gives documents identical to the incrementally built ones', async () => {
    const store = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      const rebuilt = createMemoryReadStore();
      await rebuild({ eventStore: store, readStore: rebuilt });
      // The transparency log's tiles too: a rebuild reproduces the same hashes.
      for (const collection of ['watches', 'collections', 'configurators', 'serials', 'tlog'] as const) {
        const live = await service.readStore.find(collection, {}, { sort: { _id: 1 } });
        expect(live.length, collection).to.be.greaterThan(0);
        expect(await rebuilt.find(collection, {}, { sort: { _id: 1 } }), collection).to.deep.equal(live);
      }
    } finally {
      await store.close();
    }
  });
}

describe('pipeline: admin command -> event -> BullMQ projector -> public API (real Redis, in-memory read store)', function () {
  pipelineOver(this, 120_000, () => ({}));
});

// FerretDB pays a collection scan per upsert that inserts (README): projecting the demo catalogue takes minutes there.
describeMongo('pipeline: admin command -> event -> BullMQ projector -> MongoDB -> public API (real Redis)', 'the pipeline over MongoDB', function (leg) {
  pipelineOver(this, 360_000, () => ({ MONGODB_URL: leg.url, MONGODB_DB: leg.database('pipeline') }));
});
