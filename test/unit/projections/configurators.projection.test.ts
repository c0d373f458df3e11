import { expect } from 'chai';
import { collectionDefined, watchPriceChanged, watchPublished, watchWithdrawn } from '../../fixtures/events.ts';
import { CATEGORY_KEYS } from '../../../shared/events/index.ts';
import type { ConfiguratorDoc } from '../../../shared/read-model/documents/documents.ts';
import { configuratorsProjection } from '../../../shared/read-model/projections/configurators.projection.ts';
import { doc, event, given } from './support/projection-spec.ts';

const tempo = collectionDefined('tempo', { name: { en: 'Tempo', fr: 'Tempo Chrono' } });
/** Two accessories of the Tempo collection, offered in that order. */
const strapAndBoxOffered = [
  event('AccessoryOffered', { collection: 'tempo', code: 'strap', label: { en: 'Strap', fr: 'Bracelet cuir' }, unit_price_cents: 25_000, max_quantity: 3 }),
  event('AccessoryOffered', { collection: 'tempo', code: 'box', label: { en: 'Box', fr: 'Coffret' }, unit_price_cents: 9_000, max_quantity: 1 }),
];
const offer = (category: 'case' | 'dial' | 'pushers', code: string, price: number) =>
  event('ConfiguratorOptionOffered', { collection: 'tempo', category, code, label: { en: `${code} en`, fr: `${code} fr` }, price_cents: price });
const chooseDefault = (category: 'case' | 'dial' | 'pushers', code: string) =>
  event('ConfiguratorDefaultChosen', { collection: 'tempo', category, code });

describe('configurators projection', () => {
  it('defines one document per language with the eleven categories in order, labelled, and nothing offered', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [tempo]);
    const en = doc(docs, 'en:tempo');
    const fr = doc(docs, 'fr:tempo');
    expect(en.collection).to.deep.equal({ code: 'tempo', name: 'Tempo' });
    expect(fr.collection).to.deep.equal({ code: 'tempo', name: 'Tempo Chrono' });
    expect(en.categories.map((c) => c.key)).to.deep.equal([...CATEGORY_KEYS]);
    expect(en.categories.map((c) => c.label)).to.deep.equal([
      'Case', 'Dial', 'Lugs', 'Crown', 'Case back', 'Engraving', 'Movement', 'Rehaut', 'Bracelet', 'Tachymeter', 'Pushers',
    ]);
    // French watchmaking spells it `rehaut`, with no accent (from `rehausser`), as the demo's own options do
    // (services/demo/common-options.ts, "Rehaut uni").
    expect(fr.categories.map((c) => c.label)).to.deep.equal([
      'Boîtier', 'Cadran', 'Cornes', 'Couronne', 'Fond de boîte', 'Gravure', 'Mouvement', 'Rehaut', 'Bracelet', 'Tachymètre', 'Poussoirs',
    ]);
    expect(en.categories.every((c) => c.options.length === 0)).to.equal(true);
    expect(en).to.deep.include({ accessories: [], position: 1 });
  });

  it('lists options with exactly one default per offered category, following reprices, new defaults and withdrawals', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo,
      offer('case', 'steel', 0), chooseDefault('case', 'steel'),
      offer('case', 'gold', 450_000), offer('case', 'titanium', 120_000),
      offer('dial', 'black', 0), chooseDefault('dial', 'black'),
      event('ConfiguratorOptionRepriced', { collection: 'tempo', category: 'case', code: 'gold', price_cents: 500_000 }),
      chooseDefault('case', 'titanium'),
      event('ConfiguratorOptionWithdrawn', { collection: 'tempo', category: 'case', code: 'steel' }),
    ]);
    const [caseCategory, dial] = doc(docs, 'fr:tempo').categories;
    expect(caseCategory?.options).to.deep.equal([
      { code: 'gold', label: 'gold fr', price_cents: 500_000, default: false },
      { code: 'titanium', label: 'titanium fr', price_cents: 120_000, default: true },
    ]);
    expect(dial?.options).to.deep.equal([{ code: 'black', label: 'black fr', price_cents: 0, default: true }]);
    expect(doc(docs, 'en:tempo').categories[0]?.options.map((o) => o.label)).to.deep.equal(['gold en', 'titanium en']);
  });

  it('renames its collection in each language, and a revision that keeps the name changes nothing', async () => {
    const renamed = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo, offer('case', 'steel', 0), event('CollectionRevised', { code: 'tempo', name: { en: 'Tempo Two', fr: 'Tempo Deux' } }),
    ]);
    expect(doc(renamed, 'en:tempo')).to.deep.include({ collection: { code: 'tempo', name: 'Tempo Two' }, position: 3 });
    expect(doc(renamed, 'fr:tempo')).to.deep.include({ collection: { code: 'tempo', name: 'Tempo Deux' }, position: 3 });
    expect(doc(renamed, 'fr:tempo').categories[0]?.options).to.deep.equal([{ code: 'steel', label: 'steel fr', price_cents: 0, default: false }]);
    const before = await given<ConfiguratorDoc>(configuratorsProjection, [tempo]);
    const kept = await given<ConfiguratorDoc>(configuratorsProjection, [tempo, event('CollectionRevised', { code: 'tempo', diameter_mm: 41 })]);
    expect(kept).to.deep.equal(before);
  });

  it('keeps the default of an option offered again, and offers a new option as no default', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo, offer('case', 'steel', 0), chooseDefault('case', 'steel'), offer('case', 'steel', 5_000), offer('case', 'gold', 450_000),
    ]);
    expect(doc(docs, 'en:tempo').categories[0]?.options).to.deep.equal([
      { code: 'steel', label: 'steel en', price_cents: 5_000, default: true },
      { code: 'gold', label: 'gold en', price_cents: 450_000, default: false },
    ]);
  });

  it('replaces only the option offered again, keeping the other options of its category in place', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo, offer('case', 'steel', 0), offer('case', 'gold', 450_000), offer('case', 'steel', 5_000),
    ]);
    expect(doc(docs, 'fr:tempo').categories[0]?.options).to.deep.equal([
      { code: 'steel', label: 'steel fr', price_cents: 5_000, default: false },
      { code: 'gold', label: 'gold fr', price_cents: 450_000, default: false },
    ]);
  });

  it('reprices only the accessory named', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo,
      ...strapAndBoxOffered,
      event('AccessoryRepriced', { collection: 'tempo', code: 'box', unit_price_cents: 9_500 }),
    ]);
    expect(doc(docs, 'en:tempo').accessories.map((a) => [a.code, a.unit_price_cents])).to.deep.equal([['strap', 25_000], ['box', 9_500]]);
  });

  it('offers, reprices and withdraws accessories in each language', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo,
      ...strapAndBoxOffered,
      event('AccessoryRepriced', { collection: 'tempo', code: 'strap', unit_price_cents: 27_500 }),
      event('AccessoryWithdrawn', { collection: 'tempo', code: 'box' }),
    ]);
    expect(doc(docs, 'fr:tempo').accessories).to.deep.equal([{ code: 'strap', label: 'Bracelet cuir', unit_price_cents: 27_500, max_quantity: 3 }]);
    expect(doc(docs, 'en:tempo').accessories[0]?.label).to.equal('Strap');
  });

  it('is not written by watch events: models are read from the watches (one price, one source)', async () => {
    const docs = await given<ConfiguratorDoc>(configuratorsProjection, [
      tempo,
      watchPublished('TMP-1', 'tempo', { customizable: true }), watchPriceChanged('TMP-1', 950_000, 100_000),
      event('WatchRevised', { reference: 'TMP-1', name: { en: 'First', fr: 'Premier' } }), watchWithdrawn('TMP-1'),
    ]);
    expect(doc(docs, 'en:tempo').position).to.equal(1);
    expect(Object.keys(doc(docs, 'en:tempo'))).to.have.members(['_id', 'lang', 'collection', 'categories', 'accessories', 'position']);
  });
});
