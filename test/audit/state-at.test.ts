import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { Language } from '../../shared/events/common.ts';
import { streams } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { frozenEnv, serialAnswer } from '../../services/audit/public-answers.ts';
import { checkCut, projectAt, stateAnswers } from '../../services/audit/state-at.ts';
import { collectionDefined, watchPublished } from '../fixtures/events.ts';
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

  it('refuses a point that is neither a timestamp nor a position as a usage error naming both forms', async () => {
    const result = await watchcat(store.env, 'state-at', 'yesterday-ish');
    expect(result.code).to.equal(2);
    expect(result.notes.join('\n')).to.contain('ISO 8601').and.to.contain('position');
  });

  it('answers for the last position of the history and for the very moment now: neither is past the history', async () => {
    expect((await stateAt('12', '--what', 'serials'))['as_of']).to.include({ position: 12, events: 12 });
    const eventStore = openSqliteEventStore(store.file);
    try {
      const now = Date.parse('2026-01-01T00:00:00Z');
      await checkCut({ at: now }, eventStore, now);
    } finally {
      await eventStore.close();
    }
  });

  it('answers position 0 as the state before any event', async () => {
    const before = await stateAt('0');
    expect(before['as_of']).to.include({ position: 0, events: 0 });
    expect(Date.parse((before['as_of'] as { at: string }).at)).to.be.at.most(Date.parse(hour(0)));
    expect(before).to.deep.include({ serials: [], options: {}, collections: { collections: [], lang: 'en' } });
  });

  it('reads a position padded with spaces as that position, and a timestamp with an offset as that moment', async () => {
    // parseMoment trims a timestamp; a padded position must not become a date (Date.parse('4') is a day of 2001).
    expect((await stateAt(' 4 ', '--what', 'serials'))['as_of']).to.deep.equal({ at: hour(3), position: 4, events: 4 });
    // 09:30+01:00 is 08:30Z, half past hour 0: only the collection (position 1) had been defined.
    expect((await stateAt('2025-03-01T09:30:00+01:00', '--what', 'serials'))['as_of']).to.deep.equal({ at: halfPast(0), position: 1, events: 1 });
  });

  it('prints only the section asked with --what, under as_of and lang', async () => {
    expect(Object.keys(await stateAt(halfPast(6), '--what', 'serials'))).to.have.members(['as_of', 'lang', 'serials']);
  });

  it('answers the detail of one watch in the language asked', async () => {
    const watch = await stateAt(halfPast(7), '--what', 'catalogue', '--reference', 'RG-1', '--lang', 'fr');
    expect(watch['catalogue']).to.include({ reference: 'RG-1', name: 'Régate Un', lang: 'fr' });
  });

  it('reports its progress on stderr under the command\'s name, up to the events projected', async () => {
    for (const command of ['state-at', 'price-at'] as const) {
      const request = join(store.dataDir, 'progress-request.json');
      writeFileSync(request, JSON.stringify({ collection: 'regate', model_ref: 'RG-1' }));
      const result = await watchcat(store.env, command, '4', ...(command === 'price-at' ? [request] : ['--what', 'serials']));
      expect(result.notes.some((note) => note.startsWith(`${command}: `) && /\b4 events\b/.test(note)), result.notes.join('\n')).to.equal(true);
    }
  });

  it('price-at refuses a request file it cannot read, naming it', async () => {
    const missing = join(store.dataDir, 'no-such-request.json');
    const result = await watchcat(store.env, 'price-at', '4', missing);
    expect(result.code).to.equal(1);
    expect(result.out).to.deep.equal([]);
    expect(result.notes.at(-1)).to.contain(missing);
  });

  it('does not answer a read store failure as a 422 of the request', async () => {
    const failing = { find: () => Promise.reject(new Error('read store down')), get: () => Promise.reject(new Error('read store down')) };
    const env = frozenEnv(failing as unknown as ReadStore, loadConfig({ DATA_DIR: store.dataDir }), 12, new Date(halfPast(9)));
    let failure: unknown;
    await serialAnswer(env, 'en', 'SN-0001').catch((error: unknown) => { failure = error; });
    expect(failure).to.be.an('error').with.property('message', 'read store down');
  });
});

describe('watchcat state-at without an event store', () => {
  it('refuses instead of creating an empty store and answering from it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-empty-'));
    try {
      const result = await watchcat({ DATA_DIR: dataDir }, 'state-at', '0');
      expect(result.code).to.equal(1);
      expect(result.out).to.deep.equal([]);
      expect(existsSync(join(dataDir, 'events.sqlite3'))).to.equal(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('watchcat state-at: the catalogue section is every page of 100 watches', () => {
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-pages-'));
    const eventStore = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      // Position 1 the collection, positions 2..102 the watches W-000..W-100.
      await eventStore.append(streams.collection('regate'), [collectionDefined('regate')], 'any');
      for (let i = 0; i <= 100; i += 1) {
        const reference = `W-${String(i).padStart(3, '0')}`;
        await eventStore.append(streams.watch(reference), [watchPublished(reference, 'regate')], 'any');
      }
    } finally {
      await eventStore.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const pagesAt = async (position: string) => {
    const result = await watchcat({ DATA_DIR: dataDir }, 'state-at', position, '--what', 'catalogue');
    expect(result.code, result.notes.join('\n')).to.equal(0);
    return (JSON.parse(result.out.join('\n')) as { catalogue: { total: number; offset: number; watches: unknown[] }[] }).catalogue;
  };

  it('answers exactly 100 watches in one page', async () => {
    const pages = await pagesAt('101');
    expect(pages.map(({ total, offset, watches }) => ({ total, offset, count: watches.length }))).to.deep.equal([{ total: 100, offset: 0, count: 100 }]);
  });

  it('answers 101 watches in two pages, at offsets 0 and 100', async () => {
    const pages = await pagesAt('102');
    expect(pages.map(({ total, offset, watches }) => ({ total, offset, count: watches.length }))).to.deep.equal([
      { total: 101, offset: 0, count: 100 }, { total: 101, offset: 100, count: 1 },
    ]);
  });
});

describe('state-at a moment, across writers whose clocks differ', () => {
  it('replays the history before the first event stamped after the moment, and says where it cut', async () => {
    // The admin API (clock right) defines the collection at 10:00, then the import (clock 40 minutes slow) publishes
    // a watch of it, stamped 09:30: what the API answered at 09:45 is the state before both, not a watch without its collection.
    const store = openSqliteEventStore(':memory:');
    try {
      await store.append(streams.collection('regate'), [collectionDefined('regate', {}, { occurred_at: '2025-03-01T10:00:00.000Z' })], 'no_stream');
      await store.append(streams.watch('RG-1'), [watchPublished('RG-1', 'regate', {}, { occurred_at: '2025-03-01T09:30:00.000Z' })], 'no_stream');
      const config = loadConfig({});
      const answersAt = async (moment: string) => {
        const state = await projectAt(store, { at: Date.parse(moment) });
        try {
          return await stateAnswers(state, config, 'en', ['catalogue']);
        } finally {
          await state.readStore.close();
        }
      };
      const before = await answersAt('2025-03-01T09:45:00.000Z');
      expect(before['as_of']).to.deep.equal({ at: '2025-03-01T09:45:00.000Z', position: 0, events: 0 });
      expect(before['catalogue']).to.deep.equal([{ watches: [], total: 0, limit: 100, offset: 0, lang: 'en' }]);
      const after = await answersAt('2025-03-01T10:00:00.000Z');
      expect(after['as_of']).to.deep.equal({ at: '2025-03-01T10:00:00.000Z', position: 2, events: 2 });
      expect((after['catalogue'] as { total: number }[])[0]!.total).to.equal(1);
    } finally {
      await store.close();
    }
  });
});
