import { expect } from 'chai';
import { send, type TestResponse } from '../support/http.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { WATCHES } from './support/catalogue-fixture.ts';

describe('GET /api/public/catalogue', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => { await app.close(); });

  const get = (query = ''): Promise<TestResponse> => send(app.url, `/api/public/catalogue${query}`);
  const refs = (res: TestResponse): string[] => res.json().watches.map((w: { reference: string }) => w.reference);

  it('lists every watch with the defaults: sorted by name, limit 50, offset 0, English', async () => {
    const res = await get();
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    const body = res.json();
    expect(body).to.include({ total: WATCHES.length, limit: 50, offset: 0, lang: 'en' });
    expect(refs(res)).to.deep.equal(['HE-200', 'HE-100', 'RG-100', 'RG-200', 'RG-300']);
  });

  it('answers WatchSummary fields with euros, the detail path and no internal keys', async () => {
    const body = (await get('?search=RG-200')).json();
    expect(body.watches).to.deep.equal([{
      reference: 'RG-200', name: 'Regate Chronograph', collection: { code: 'regate', name: 'Régate' },
      short_description: 'Regate Chronograph (en)', price_eur: 18900.5, currency: 'EUR', stock_status: 'low_stock',
      in_stock: true, image: { url: '/images/RG-200.jpg', alt: 'Regate Chronograph' }, url: '/api/public/catalogue/RG-200',
    }]);
  });

  it('answers in French with lang=fr', async () => {
    const body = (await get('?lang=fr&collection=heritage')).json();
    expect(body.lang).to.equal('fr');
    expect(body.watches.map((w: { name: string }) => w.name)).to.deep.equal(['anniversaire (a+)+$ .*', 'Héritage Petite Seconde']);
    expect(body.watches[0].collection.name).to.equal('Héritage 1891');
  });

  it('filters by collection code case-insensitively; an unknown code is an empty list', async () => {
    expect(refs(await get('?collection=REGATE'))).to.deep.equal(['RG-100', 'RG-200', 'RG-300']);
    const unknown = await get('?collection=nope');
    expect(unknown.status).to.equal(200);
    expect(unknown.json()).to.include({ total: 0 });
  });

  it('searches case- and accent-insensitively: edition finds Édition', async () => {
    expect(refs(await get('?search=EDITION'))).to.deep.equal(['RG-300']);
    expect(refs(await get('?search=%C3%A9dition&lang=fr'))).to.deep.equal(['RG-300']);
  });

  it('matches search text literally: regex syntax and operators are plain characters', async () => {
    expect(refs(await get(`?search=${encodeURIComponent('(a+)+$')}`))).to.deep.equal(['HE-200']);
    expect(refs(await get(`?search=${encodeURIComponent('.*')}`))).to.deep.equal(['HE-200']);
    expect((await get(`?search=${encodeURIComponent('$where')}`)).json().total).to.equal(0);
    expect((await get('?search=R.-100')).json().total).to.equal(0);
  });

  it('filters by price in euros, bounds included, max_price 0 meaning no limit', async () => {
    expect(refs(await get('?min_price=12500&max_price=18900.5&sort=price_asc'))).to.deep.equal(['RG-100', 'RG-300', 'RG-200']);
    expect(refs(await get('?min_price=18900.51'))).to.deep.equal(['HE-200']);
    expect((await get('?max_price=0')).json().total).to.equal(WATCHES.length);
  });

  it('accepts price_min/price_max as aliases, and min_price/max_price win when both are sent', async () => {
    expect(refs(await get('?price_min=20000'))).to.deep.equal(['HE-200']);
    expect(refs(await get('?price_max=10000'))).to.deep.equal(['HE-100']);
    expect(refs(await get('?price_min=20000&min_price=0&price_max=1&max_price=10000'))).to.deep.equal(['HE-100']);
  });

  it('in_stock=true keeps in_stock and low_stock watches only, with any accepted boolean spelling', async () => {
    for (const spelling of ['true', 'YES', 'on', '1', 't', 'Y']) {
      expect(refs(await get(`?in_stock=${spelling}`)), spelling).to.deep.equal(['HE-200', 'RG-100', 'RG-200']);
    }
    expect((await get('?in_stock=off')).json().total).to.equal(WATCHES.length);
  });

  it('sorts by price both ways and by collection, ties broken by reference ascending', async () => {
    expect(refs(await get('?sort=price_asc'))).to.deep.equal(['HE-100', 'RG-100', 'RG-300', 'RG-200', 'HE-200']);
    expect(refs(await get('?sort=price_desc'))).to.deep.equal(['HE-200', 'RG-200', 'RG-100', 'RG-300', 'HE-100']);
    expect(refs(await get('?sort=collection'))).to.deep.equal(['HE-200', 'HE-100', 'RG-100', 'RG-200', 'RG-300']);
  });

  it('pages without repeating or skipping a watch, total counting every match before paging', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < WATCHES.length; offset += 2) {
      const res = await get(`?sort=price_desc&limit=2&offset=${offset}`);
      expect(res.json().total).to.equal(WATCHES.length);
      seen.push(...refs(res));
    }
    expect(seen).to.deep.equal(['HE-200', 'RG-200', 'RG-100', 'RG-300', 'HE-100']);
  });

  it('takes the last value of a repeated parameter and ignores unknown parameters', async () => {
    const body = (await get('?limit=abc&limit=2&whatever=1')).json();
    expect(body.limit).to.equal(2);
    expect(body.watches).to.have.length(2);
  });
});
