import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Language } from '../../shared/events/common.ts';
import { BLUE_DIAL_CENTS, hour, writeKnownHistory, type TempStore } from './support/audit-history.ts';
import { watchcat } from './support/watchcat-run.ts';

/** Half past hour n: between the event of hour n and the next one. */
const halfPast = (n: number) => new Date(Date.parse(hour(n)) + 30 * 60_000).toISOString();

const TEXTS = {
  en: { collection: 'Regatta', 'RG-1': 'Regatta One', 'RG-2': 'Regatta Two', short: 'A watch.', alt: 'Front' },
  fr: { collection: 'Régate', 'RG-1': 'Régate Un', 'RG-2': 'Régate Deux', short: 'Une montre.', alt: 'Face' },
} as const;

type Stock = 'in_stock' | 'out_of_stock';

function summary(lang: Language, reference: 'RG-1' | 'RG-2', priceEur: number, stock: Stock = 'in_stock') {
  const t = TEXTS[lang];
  return {
    reference, name: t[reference], collection: { code: 'regate', name: t.collection }, short_description: t.short,
    price_eur: priceEur, currency: 'EUR', stock_status: stock, in_stock: stock === 'in_stock',
    image: { url: `/images/${reference.toLowerCase()}.jpg`, alt: t.alt }, url: `/api/public/catalogue/${reference}`,
  };
}

function collections(lang: Language, count: number, range: { min: number; max: number } | null) {
  const fr = lang === 'fr';
  return {
    collections: [{
      code: 'regate', name: TEXTS[lang].collection, short_description: fr ? 'Une collection.' : 'A collection.',
      description: fr ? 'Une collection de montres.' : 'A collection of watches.', type: 'dress', diameter_mm: 39,
      product_count: count, price_range_eur: range,
    }],
    lang,
  };
}

/** Watches in the order of the `name` sort: `Regatta One` < `Regatta Two`, but `Régate Deux` < `Régate Un`. */
function byName(lang: Language, watches: ReturnType<typeof summary>[]) {
  return [...watches].sort((a, b) => (lang === 'fr' ? b.reference.localeCompare(a.reference) : a.reference.localeCompare(b.reference)));
}

const page = (lang: Language, watches: ReturnType<typeof summary>[]) => [{ watches: byName(lang, watches), total: watches.length, limit: 100, offset: 0, lang }];

/** What the catalogue and collections answered at each moment, per language, from the known history. */
const EXPECTED: { at: string; position: number; catalogue: (lang: Language) => unknown; collections: (lang: Language) => unknown }[] = [
  {
    at: halfPast(2), position: 3,
    catalogue: (lang) => page(lang, [summary(lang, 'RG-1', 10_000), summary(lang, 'RG-2', 20_000)]),
    collections: (lang) => collections(lang, 2, { min: 10_000, max: 20_000 }),
  },
  {
    at: halfPast(3), position: 4,
    catalogue: (lang) => page(lang, [summary(lang, 'RG-1', 12_500), summary(lang, 'RG-2', 20_000)]),
    collections: (lang) => collections(lang, 2, { min: 12_500, max: 20_000 }),
  },
  {
    at: halfPast(5), position: 6,
    catalogue: (lang) => page(lang, [summary(lang, 'RG-1', 12_500), summary(lang, 'RG-2', 20_000, 'out_of_stock')]),
    collections: (lang) => collections(lang, 2, { min: 12_500, max: 20_000 }),
  },
  {
    at: halfPast(7), position: 8,
    catalogue: (lang) => page(lang, [summary(lang, 'RG-1', 12_500)]),
    collections: (lang) => collections(lang, 1, { min: 12_500, max: 12_500 }),
  },
];

describe('watchcat state-at and price-at: the public answers at a point in the past', () => {
  let store: TempStore;
  before(async () => {
    store = await writeKnownHistory();
  });
  after(() => rmSync(store.dataDir, { recursive: true, force: true }));

  const stateAt = async (...args: string[]) => {
    const result = await watchcat(store.env, 'state-at', ...args);
    expect(result.code, result.notes.join('\n')).to.equal(0);
    return JSON.parse(result.out.join('\n')) as Record<string, unknown>;
  };

  it('answers empty catalogue, collections, options and serials before the first event', async () => {
    const moment = '2025-03-01T07:00:00.000Z';
    expect(await stateAt(moment)).to.deep.equal({
      as_of: { at: moment, position: 0, events: 0 }, lang: 'en',
      catalogue: [{ watches: [], total: 0, limit: 100, offset: 0, lang: 'en' }],
      collections: { collections: [], lang: 'en' }, options: {}, serials: [],
    });
  });

  for (const lang of ['en', 'fr'] as const) {
    for (const expected of EXPECTED) {
      it(`answers the catalogue and collections in ${lang} as they stood at ${expected.at} (position ${expected.position})`, async () => {
        const catalogue = await stateAt(expected.at, '--lang', lang, '--what', 'catalogue');
        expect(catalogue['as_of']).to.deep.equal({ at: expected.at, position: expected.position, events: expected.position });
        expect(catalogue['catalogue']).to.deep.equal(expected.catalogue(lang));
        expect((await stateAt(expected.at, '--lang', lang, '--what', 'collections'))['collections']).to.deep.equal(expected.collections(lang));
      });
    }
  }

  it('answers the same for a position as for a moment between that event and the next', async () => {
    const byPosition = await stateAt('4', '--lang', 'fr');
    const byMoment = await stateAt(halfPast(3), '--lang', 'fr');
    expect(byPosition['as_of']).to.deep.equal({ at: hour(3), position: 4, events: 4 });
    expect({ ...byPosition, as_of: null, serials: null }).to.deep.equal({ ...byMoment, as_of: null, serials: null });
  });

  it('answers a serial as authentic after its registration and stolen after the report, checked at the moment asked', async () => {
    const registered = (await stateAt(halfPast(4), '--what', 'serials'))['serials'] as Record<string, unknown>[];
    expect(registered).to.have.length(1);
    expect(registered[0]).to.include({ serial: 'SN-0001', verification_status: 'AUTHENTIC', stolen: false, checked_at: halfPast(4), lang: 'en' });
    expect(registered[0]!['details']).to.deep.equal({ model: 'Regatta One', reference: 'RG-1', collection: 'regate', manufacture_year: 2024 });
    const stolen = (await stateAt(halfPast(6), '--what', 'serials', '--lang', 'fr'))['serials'] as Record<string, unknown>[];
    expect(stolen[0]).to.include({ verification_status: 'STOLEN', stolen: true, checked_at: halfPast(6), lang: 'fr' });
    expect((stolen[0]!['details'] as Record<string, unknown>)['model']).to.equal('Régate Un');
  });

  it('answers the configurator options with the option prices of the moment', async () => {
    const dialOf = async (moment: string, lang: Language) => {
      const options = (await stateAt(moment, '--what', 'options', '--lang', lang))['options'] as Record<string, { models: unknown; categories: { key: string; options: unknown }[] }>;
      return { models: options['regate']!.models, dial: options['regate']!.categories.find((c) => c.key === 'dial')!.options };
    };
    expect(await dialOf(halfPast(8), 'fr')).to.deep.equal({
      models: [{ model_ref: 'RG-1', name: 'Régate Un', base_price_eur: 12_500 }],
      dial: [
        { code: 'silver', label: 'Cadran argenté', price_eur: 0, default: true },
        { code: 'blue', label: 'Cadran bleu', price_eur: BLUE_DIAL_CENTS.offered / 100, default: false },
      ],
    });
    expect((await dialOf(halfPast(9), 'en')).dial).to.deep.equal([
      { code: 'silver', label: 'Silver dial', price_eur: 0, default: true },
      { code: 'blue', label: 'Blue dial', price_eur: BLUE_DIAL_CENTS.repriced / 100, default: false },
    ]);
  });

  describe('price-at', () => {
    let request: string;
    before(() => {
      request = join(store.dataDir, 'price-request.json');
      writeFileSync(request, JSON.stringify({ collection: 'regate', model_ref: 'RG-1', options: { dial: 'blue' } }));
    });

    for (const [moment, base, dial] of [[halfPast(8), 12_500, BLUE_DIAL_CENTS.offered], [halfPast(9), 12_500, BLUE_DIAL_CENTS.repriced]] as const) {
      it(`prices the request with the prices of ${moment}`, async () => {
        const result = await watchcat(store.env, 'price-at', moment, request, '--lang', 'fr');
        expect(result.code).to.equal(0);
        const printed = JSON.parse(result.out.join('\n')) as { as_of: unknown; status: number; answer: Record<string, unknown> };
        // The point priced: the moment asked, and the last event before it (audit-history.ts: 9-11 at h8, 12 at h9).
        const last = moment === halfPast(8) ? 11 : 12;
        expect(printed.as_of).to.deep.equal({ at: moment, position: last, events: last });
        expect(printed.status).to.equal(200);
        const price = printed.answer;
        expect(price).to.include({ collection: 'regate', model_ref: 'RG-1', base_price_eur: base, options_total_eur: dial / 100, total_eur: base + dial / 100, lang: 'fr' });
        expect(price['options']).to.deep.equal([{ category: 'dial', code: 'blue', label: 'Cadran bleu', price_eur: dial / 100 }]);
      });
    }

    it('prints the 422 the API would have answered before the option existed, and exits 1', async () => {
      const result = await watchcat(store.env, 'price-at', halfPast(7), request);
      expect(result.code).to.equal(1);
      const printed = JSON.parse(result.out.join('\n')) as { status: number; answer: { detail: { loc: unknown[] }[] } };
      expect(printed.status).to.equal(422);
      const { detail } = printed.answer;
      expect(detail.map((issue) => issue.loc)).to.deep.equal([['body', 'options', 'dial']]);
      expect(result.notes.join('\n')).to.contain('would have refused');
    });
  });

  it('refuses a position past the history and a moment in the future, instead of answering for another point', async () => {
    const beyond = await watchcat(store.env, 'state-at', '999999');
    expect(beyond.code).to.equal(1);
    expect(beyond.notes.at(-1)).to.equal('watchcat: position 999999 is beyond the history, whose last position is 12');
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const request = join(store.dataDir, 'future-request.json');
    writeFileSync(request, JSON.stringify({ collection: 'regate', model_ref: 'RG-1' }));
    const later = await watchcat(store.env, 'price-at', future, request);
    expect(later.code).to.equal(1);
    expect(later.notes.at(-1)).to.contain(`${future} is in the future`);
    expect(later.out).to.deep.equal([]);
  });

  it('answers one serial with --serial and one watch with --reference, as the verification and detail operations would have', async () => {
    const one = await stateAt(halfPast(6), '--what', 'serials', '--serial', 'sn-0001');
    expect(one['serials']).to.include({ serial: 'SN-0001', verification_status: 'STOLEN', checked_at: halfPast(6) });
    const none = await stateAt(halfPast(6), '--what', 'serials', '--serial', 'SN-9999');
    expect(none['serials']).to.include({ serial: 'SN-9999', verification_status: 'NOT_FOUND', details: null });
    const watch = await stateAt(halfPast(7), '--what', 'catalogue', '--reference', 'rg-1');
    expect(watch['catalogue']).to.include({ reference: 'RG-1', price_eur: 12_500 });
    const withdrawn = await stateAt(halfPast(7), '--what', 'catalogue', '--reference', 'RG-2');
    expect(withdrawn['catalogue']).to.deep.equal({ detail: 'Watch not found' });
  });

  it('refuses a point that is neither a timestamp nor a position as a usage error', async () => {
    expect((await watchcat(store.env, 'state-at', 'yesterday-ish')).code).to.equal(2);
  });
});
