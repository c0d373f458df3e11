import { expect } from 'chai';
import { send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { checkpoint, putAll, SERIALS } from './support/catalogue-fixture.ts';
import type { SerialDoc } from '../../shared/read-model/documents/documents.ts';

describe('GET /api/public/verify/{serial} and /api/public/status', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp({}, { RATE_LIMIT_PER_MINUTE: '70', PUBLIC_BASE_URL: 'https://api.example/' }); });
  after(async () => { await app.close(); });

  describe('verify', () => {
    it('answers AUTHENTIC with the details for a registered serial in any case, upper-cased, no-store', async () => {
      const res = await send(app.url, '/api/public/verify/aur-0001');
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal('no-store');
      const body = res.json();
      expect(body).to.have.keys('serial', 'verification_status', 'stolen', 'details', 'checked_at', 'message', 'lang');
      expect(body).to.include({ serial: 'AUR-0001', verification_status: 'AUTHENTIC', stolen: false, lang: 'en' });
      expect(body.details).to.deep.equal({ model: 'Regate Automatic', reference: 'RG-100', collection: 'regate', manufacture_year: 2021 });
      expect(new Date(body.checked_at).toISOString()).to.equal(body.checked_at);
      expect(body.message).to.match(/authentic/);
    });

    it('answers STOLEN for a serial reported stolen, in French', async () => {
      const body = (await send(app.url, '/api/public/verify/AUR-0666?lang=fr')).json();
      expect(body).to.include({ verification_status: 'STOLEN', stolen: true, lang: 'fr' });
      expect(body.details.model).to.equal('Héritage Petite Seconde');
      expect(body.message).to.match(/volée/);
    });

    it('refuses a serial whose document holds a status this version does not know (a newer projector\'s), as a change it cannot read: never AUTHENTIC', async () => {
      const lost = { ...SERIALS[0]!, _id: 'AUR-0003', serial: 'AUR-0003', status: 'lost' } as unknown as SerialDoc;
      await putAll(app.store, 'serials', [lost]);
      for (const lang of ['en', 'fr']) {
        const res = await send(app.url, `/api/public/verify/AUR-0003?lang=${lang}`);
        expect(res.status, res.text).to.equal(503);
        expect(res.headers['retry-after']).to.equal('300');
        expect(res.json().detail).to.match(lang === 'en' ? /cannot read/ : /ne sait pas lire/);
      }
      await app.store.write('serials', [{ delete: { _id: lost._id, position: lost.position } }]);
    });

    it('answers NOT_FOUND with null details for an unknown serial, after one lookup like a known one', async () => {
      const before = app.store.queries;
      const body = (await send(app.url, '/api/public/verify/ZZZZ-9999')).json();
      expect(app.store.queries - before).to.equal(1);
      expect(body).to.include({ serial: 'ZZZZ-9999', verification_status: 'NOT_FOUND', stolen: false, details: null });
      const known = app.store.queries;
      await send(app.url, '/api/public/verify/AUR-0001');
      expect(app.store.queries - known).to.equal(1);
    });
  });

  describe('status', () => {
    it('answers the brand, languages, the seven operations and discovery files, limits from config and agent links', async () => {
      const res = await send(app.url, '/api/public/status');
      expect(res.status).to.equal(200);
      expect(res.headers['etag']).to.be.a('string');
      const body = res.json();
      expect(body).to.include({ version: '1.0.0', status: 'ok' });
      expect(body.brand).to.deep.equal({
        name: 'Maison Test', tagline: 'Test watches since 1900', country: 'CH', founded: 1900, website: 'https://maison-test.example',
      });
      expect(body.languages).to.deep.equal(['en', 'fr']);
      expect(body.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).to.deep.equal([
        'GET /api/public/status', 'GET /api/public/catalogue', 'GET /api/public/catalogue/{reference}',
        'GET /api/public/collections', 'GET /api/public/configurator/options/{collection}',
        'POST /api/public/configurator/price', 'GET /api/public/verify/{serial}',
        'GET /llms.txt', 'GET /llms-full.txt', 'GET /.well-known/openapi-public.json', 'GET /.well-known/ai-brief.json',
        'GET /.well-known/jwks.json',
      ]);
      expect(body.rate_limits).to.deep.equal({ per_ip_per_minute: 70, verify_per_ip_per_minute: 10 });
      expect(body.agents).to.deep.equal({
        llms_txt: 'https://api.example/llms.txt', llms_full_txt: 'https://api.example/llms-full.txt',
        openapi: 'https://api.example/.well-known/openapi-public.json', ai_brief: 'https://api.example/.well-known/ai-brief.json',
        jwks: 'https://api.example/.well-known/jwks.json', mcp: 'https://api.example/mcp',
        transparency: 'https://api.example/.well-known/transparency/key',
      });
    });

    // docs/api.md, "Conventions": with `lang=fr`, text fields come in French. Each endpoint's `summary` is such a text;
    // before, status listed the English ones whatever `lang` said (only the brand's tagline was in French).
    it('lists the endpoints with their summaries in French with lang=fr, the same endpoints in the same order', async () => {
      type Endpoint = { method: string; path: string; summary: string };
      const en = (await send(app.url, '/api/public/status?lang=en')).json().endpoints as Endpoint[];
      const fr = (await send(app.url, '/api/public/status?lang=fr')).json().endpoints as Endpoint[];
      expect(fr.map(({ method, path }) => `${method} ${path}`)).to.deep.equal(en.map(({ method, path }) => `${method} ${path}`));
      for (const [i, { method, path, summary }] of fr.entries()) {
        expect(summary, `${method} ${path}`).to.be.a('string').and.not.equal('');
        expect(summary, `${method} ${path}: the English summary under lang=fr`).not.to.equal(en[i]!.summary);
      }
      expect(fr.find(({ path }) => path === '/api/public/verify/{serial}')?.summary).to.equal('Vérifier un numéro de série');
    });

    it('reports the lowest projection checkpoint as the read-model position, in the body and the header', async () => {
      const res = await send(app.url, '/api/public/status?lang=fr');
      const { projections, ...position } = res.json().read_model;
      expect(position).to.deep.equal({ position: 40, updated_at: '2025-01-02T03:04:06.000Z' });
      // The fixture's checkpoints, confirmed at the head as it was loaded: built and fresh.
      expect(projections.map(({ name, position: at, built, fresh }: Record<string, unknown>) => ({ name, at, built, fresh }))).to.have.deep.members([
        { name: 'watches', at: 42, built: true, fresh: true }, { name: 'serials', at: 40, built: true, fresh: true },
        { name: 'collections', at: 42, built: true, fresh: true }, { name: 'configurators', at: 42, built: true, fresh: true },
      ]);
      expect(res.headers['x-read-model-position']).to.equal('40');
      expect(res.json().brand.tagline).to.equal('Montres de test depuis 1900');
      await putAll(app.store, 'checkpoints', [checkpoint('serials', 45, '2025-02-01T00:00:00.000Z')]);
      await app.clock.refresh();
      expect((await send(app.url, '/api/public/status')).json().read_model).to.deep.include({ position: 42, updated_at: '2025-02-01T00:00:00.000Z' });
    });

    it('says degraded when the health probe says so', async () => {
      app.health.status = 'degraded';
      try {
        expect((await send(app.url, '/api/public/status')).json().status).to.equal('degraded');
      } finally {
        app.health.status = 'ok';
      }
    });
  });
});
