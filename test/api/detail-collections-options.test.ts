import { expect } from 'chai';
import { CATEGORY_KEYS } from '../../shared/events/common.ts';
import { send } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { checkpoint, putAll } from './support/catalogue-fixture.ts';

describe('GET /api/public/catalogue/{reference}, /collections and /configurator/options/{collection}', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => { await app.close(); });

  describe('watch detail', () => {
    it('answers every detail field, matching the reference case-insensitively', async () => {
      const res = await send(app.url, '/api/public/catalogue/rg-100');
      expect(res.status).to.equal(200);
      const body = res.json();
      expect(body).to.include({
        reference: 'RG-100', name: 'Regate Automatic', price_eur: 12500, currency: 'EUR', tax_included: true,
        customizable: true, configurator_path: '/api/public/configurator/options/regate', lang: 'en',
        url: '/api/public/catalogue/RG-100', description: 'Regate Automatic: a watch of the Régate.',
      });
      expect(body.specifications).to.deep.equal({ case_diameter: '41 mm', material: 'steel' });
      expect(body.images).to.deep.equal([{ url: '/images/RG-100.jpg', alt: 'Regate Automatic', role: 'main' }]);
      expect(body.features).to.deep.equal(['Sapphire crystal']);
      expect(body.seo).to.have.keys('title', 'description', 'keywords', 'canonical_path');
      expect(body.manufacture).to.deep.equal({ name: 'Maison Test', origin: 'Switzerland' });
      expect(body).not.to.have.any.keys('_id', 'sort_name', 'search_text', 'position', 'price_cents');
    });

    it('answers in French, and gives no configurator path to a watch that is not customizable', async () => {
      const body = (await send(app.url, '/api/public/catalogue/HE-100?lang=fr')).json();
      expect(body).to.include({ name: 'Héritage Petite Seconde', lang: 'fr', customizable: false, configurator_path: null });
      expect(body.specifications.material).to.equal('acier');
    });

    it('answers 404 Watch not found for an unknown reference', async () => {
      const res = await send(app.url, '/api/public/catalogue/NOPE-1');
      expect(res.status).to.equal(404);
      expect(res.json()).to.deep.equal({ detail: 'Watch not found' });
    });

    it('answers 404 once the watch is withdrawn (its documents removed) and the read model has moved', async () => {
      expect((await send(app.url, '/api/public/catalogue/RG-300')).status).to.equal(200);
      await app.store.write('watches', [{ delete: { _id: 'en:RG-300', position: 50 } }]);
      await putAll(app.store, 'checkpoints', [checkpoint('serials', 50), checkpoint('watches', 50)]);
      await app.clock.refresh();
      expect((await send(app.url, '/api/public/catalogue/RG-300')).status).to.equal(404);
      expect((await send(app.url, '/api/public/catalogue/RG-300?lang=fr')).status).to.equal(200);
    });
  });

  describe('collections', () => {
    it('lists the collections by name with counts and euro price ranges', async () => {
      const body = (await send(app.url, '/api/public/collections')).json();
      expect(body.lang).to.equal('en');
      expect(body.collections.map((c: { code: string }) => c.code)).to.deep.equal(['abysse', 'heritage', 'regate']);
      expect(body.collections[1]).to.deep.equal({
        code: 'heritage', name: 'Heritage 1891', short_description: 'Heritage 1891 short', description: 'Heritage 1891 long',
        type: 'heritage', diameter_mm: 38, product_count: 2, price_range_eur: { min: 9800, max: 24500 },
      });
    });

    it('gives a null price range and a zero count to a collection without watches', async () => {
      const abysse = (await send(app.url, '/api/public/collections?lang=fr')).json().collections[0];
      expect(abysse).to.include({ code: 'abysse', product_count: 0, price_range_eur: null });
    });
  });

  describe('configurator options', () => {
    it('answers the models, the eleven categories in contract order, accessories and delivery, in euros', async () => {
      const res = await send(app.url, '/api/public/configurator/options/regate');
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal('public, max-age=60');
      const body = res.json();
      expect(body.collection).to.deep.equal({ code: 'regate', name: 'Régate' });
      expect(body.currency).to.equal('EUR');
      expect(body.models).to.deep.equal([
        { model_ref: 'RG-100', name: 'Regate Automatic', base_price_eur: 12500 },
        { model_ref: 'RG-200', name: 'Regate Chronograph', base_price_eur: 18900.5 },
      ]);
      expect(body.categories.map((c: { key: string }) => c.key)).to.deep.equal([...CATEGORY_KEYS]);
      expect(body.categories[0].options).to.deep.equal([
        { code: 'steel', label: 'Steel', price_eur: 0, default: true },
        { code: 'gold', label: 'Rose gold', price_eur: 8500.5, default: false },
      ]);
      expect(body.categories.find((c: { key: string }) => c.key === 'pushers').options).to.deep.equal([]);
      expect(body.accessories[0]).to.deep.equal({ code: 'strap', label: 'Extra strap', unit_price_eur: 250.1, max_quantity: 3 });
      expect(body.delivery).to.deep.equal({ min_weeks: 8, max_weeks: 12 });
      expect(body.lang).to.equal('en');
    });

    it('answers in French for a collection code in any case', async () => {
      const body = (await send(app.url, '/api/public/configurator/options/REGATE?lang=fr')).json();
      expect(body.lang).to.equal('fr');
      expect(body.accessories[1].label).to.equal('Écrin de voyage');
    });

    it('answers 404 Collection not found for an unknown collection', async () => {
      const res = await send(app.url, '/api/public/configurator/options/nope');
      expect(res.status).to.equal(404);
      expect(res.json()).to.deep.equal({ detail: 'Collection not found' });
    });
  });
});
