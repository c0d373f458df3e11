import { expect } from 'chai';
import { collectionDefined, watchPriceChanged, watchPublished, watchStockChanged, watchWithdrawn } from '../../fixtures/events.ts';
import type { WatchDoc } from '../../../shared/read-model/documents/documents.ts';
import { watchesProjection, type WatchesProjectionDoc } from '../../../shared/read-model/projections/watches.projection.ts';
import { doc, event, given, positioned } from './support/projection-spec.ts';

const lumiere = collectionDefined('lumiere', { name: { en: 'Lumière', fr: 'Lumière' } });
const published = watchPublished('LUM-01', 'lumiere', {
  name: { en: 'Lumière Édition', fr: 'Lumière Édition Or' },
  short_description: { en: 'Dress watch.', fr: 'Montre habillée.' },
  description: { en: 'A slim dress watch.', fr: 'Une montre habillée fine.' },
  specifications: { en: { case_diameter: '38 mm', material: 'Gold' }, fr: { case_diameter: '38 mm', material: 'Or' } },
  images: [
    { path: '/images/lum-01-side.jpg', alt: { en: 'Side', fr: 'Profil' }, role: 'gallery' },
    { path: '/images/lum-01.jpg', alt: { en: 'Front', fr: 'Face' }, role: 'main' },
  ],
  features: { en: ['Hand-wound'], fr: ['Remontage manuel'] },
  seo: {
    title: { en: 'Lumière Édition', fr: 'Lumière Édition' },
    description: { en: 'Buy it.', fr: 'Achetez-la.' },
    keywords: { en: ['dress'], fr: ['habillée'] },
  },
  manufacture: { name: 'Maison', origin: { en: 'Switzerland', fr: 'Suisse' }, workshop: { en: 'Geneva', fr: 'Genève' } },
  customizable: true,
  price_cents: 1_250_050,
  stock_status: 'low_stock',
});

/** The distinct slices of three characters from each position of `text` (shorter at its end), sorted. */
function gramsOf(text: string): string[] {
  const grams = new Set<string>();
  for (let at = 0; at < text.length; at += 1) grams.add(text.slice(at, at + 3));
  return [...grams].sort();
}

describe('watches projection', () => {
  it('publishes one document per language with every summary and detail field', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [lumiere, published]);
    const { search_grams: grams, ...en } = doc(docs, 'en:LUM-01');
    expect(en).to.deep.equal({
      _id: 'en:LUM-01', lang: 'en', reference: 'LUM-01', name: 'Lumière Édition',
      collection: { code: 'lumiere', name: 'Lumière' },
      short_description: 'Dress watch.', description: 'A slim dress watch.',
      price_cents: 1_250_050, stock_status: 'low_stock', in_stock: true,
      image: { url: '/images/lum-01.jpg', alt: 'Front' },
      images: [
        { url: '/images/lum-01-side.jpg', alt: 'Side', role: 'gallery' },
        { url: '/images/lum-01.jpg', alt: 'Front', role: 'main' },
      ],
      specifications: { case_diameter: '38 mm', material: 'Gold' },
      features: ['Hand-wound'],
      seo: { title: 'Lumière Édition', description: 'Buy it.', keywords: ['dress'], canonical_path: '/api/public/catalogue/LUM-01' },
      manufacture: { name: 'Maison', origin: 'Switzerland', workshop: 'Geneva' },
      customizable: true,
      sort_name: 'lumiere edition', sort_collection: 'lumiere',
      search_text: 'lumiere edition lum-01 a slim dress watch.',
      position: 2,
    });
    // The search index's grams: every three characters of the search text, and its last two and last one.
    expect([...grams].sort()).to.deep.equal(gramsOf('lumiere edition lum-01 a slim dress watch.'));
    const fr = doc(docs, 'fr:LUM-01');
    expect(fr).to.include({ lang: 'fr', name: 'Lumière Édition Or', description: 'Une montre habillée fine.', sort_name: 'lumiere edition or' });
    expect(fr.image).to.deep.equal({ url: '/images/lum-01.jpg', alt: 'Face' });
    expect(fr.specifications).to.deep.equal({ case_diameter: '38 mm', material: 'Or' });
    expect(fr.manufacture).to.deep.equal({ name: 'Maison', origin: 'Suisse', workshop: 'Genève' });
    expect(fr.features).to.deep.equal(['Remontage manuel']);
    expect(fr.search_text).to.equal('lumiere edition or lum-01 une montre habillee fine.');
  });

  it('takes the first image when none is marked main', async () => {
    const noMain = watchPublished('LUM-02', 'lumiere', {
      images: [
        { path: '/images/a.jpg', alt: { en: 'A', fr: 'A' }, role: 'gallery' },
        { path: '/images/b.jpg', alt: { en: 'B', fr: 'B' }, role: 'wrist' },
      ],
    });
    const docs = await given<WatchDoc>(watchesProjection, [lumiere, noMain]);
    expect(doc(docs, 'en:LUM-02').image).to.deep.equal({ url: '/images/a.jpg', alt: 'A' });
  });

  it('follows price and stock changes, in_stock only for in_stock and low_stock', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [
      lumiere, published, watchPriceChanged('LUM-01', 990_000, 1_250_050), watchStockChanged('LUM-01', 'made_to_order'),
    ]);
    for (const id of ['en:LUM-01', 'fr:LUM-01']) {
      expect(doc(docs, id)).to.include({ price_cents: 990_000, stock_status: 'made_to_order', in_stock: false, position: 4 });
    }
  });

  it('marks a watch in_stock exactly when its stock status is in_stock or low_stock (docs/api.md, in_stock=true)', async () => {
    const expected = { in_stock: true, low_stock: true, out_of_stock: false, made_to_order: false } as const;
    for (const [status, inStock] of Object.entries(expected)) {
      const docs = await given<WatchDoc>(watchesProjection, [lumiere, published, watchStockChanged('LUM-01', status as keyof typeof expected)]);
      expect(doc(docs, 'en:LUM-01'), status).to.include({ stock_status: status, in_stock: inStock });
    }
  });

  it('applies a revision to the fields it names and recomputes the keys derived from them', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [lumiere, published, event('WatchRevised', {
      reference: 'LUM-01',
      name: { en: 'Aurore', fr: 'Aurore Dorée' },
      images: [{ path: '/images/new.jpg', alt: { en: 'New', fr: 'Nouveau' }, role: 'detail' }],
    })]);
    const en = doc(docs, 'en:LUM-01');
    expect(en).to.include({ name: 'Aurore', sort_name: 'aurore', description: 'A slim dress watch.', position: 3 });
    expect(en.search_text).to.equal('aurore lum-01 a slim dress watch.');
    expect([...en.search_grams].sort()).to.deep.equal(gramsOf('aurore lum-01 a slim dress watch.'));
    expect(en.image).to.deep.equal({ url: '/images/new.jpg', alt: 'New' });
    expect(en.seo.canonical_path).to.equal('/api/public/catalogue/LUM-01');
    expect(doc(docs, 'fr:LUM-01')).to.include({ name: 'Aurore Dorée', sort_name: 'aurore doree' });
  });

  // WatchRevised's texts are each optional (watch.events.ts): a revision without a name keeps the one published.
  it('keeps the name and its keys on a revision that names only the description', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [lumiere, published, event('WatchRevised', {
      reference: 'LUM-01', description: { en: 'A thin watch.', fr: 'Une montre mince.' },
    })]);
    expect(doc(docs, 'en:LUM-01')).to.include({
      name: 'Lumière Édition', sort_name: 'lumiere edition', description: 'A thin watch.',
      search_text: 'lumiere edition lum-01 a thin watch.', position: 3,
    });
    expect(doc(docs, 'fr:LUM-01')).to.include({ name: 'Lumière Édition Or', description: 'Une montre mince.' });
  });

  it('gives a manufacture without a workshop its name and origin in each language, and no workshop', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [lumiere, watchPublished('LUM-02', 'lumiere')]);
    expect(doc(docs, 'en:LUM-02').manufacture).to.deep.equal({ name: 'Manufacture', origin: 'Switzerland' });
    expect(doc(docs, 'fr:LUM-02').manufacture).to.deep.equal({ name: 'Manufacture', origin: 'Suisse' });
  });

  it('gives each watch the name of its own collection when several are defined', async () => {
    const docs = await given<WatchDoc>(watchesProjection, [
      lumiere, collectionDefined('regate', { name: { en: 'Regatta', fr: 'Régate' } }), published, watchPublished('REG-01', 'regate'),
    ]);
    expect(doc(docs, 'en:LUM-01').collection).to.deep.equal({ code: 'lumiere', name: 'Lumière' });
    expect(doc(docs, 'fr:REG-01').collection).to.deep.equal({ code: 'regate', name: 'Régate' });
  });

  for (const batchSize of [1, 100]) {
    it(`renames the collection in every watch of it, in both languages (batches of ${batchSize})`, async () => {
      const docs = await given<WatchDoc>(watchesProjection, [
        lumiere, collectionDefined('regate'), published, watchPublished('REG-01', 'regate'),
        event('CollectionRevised', { code: 'lumiere', name: { en: 'Éclat', fr: 'Éclat du jour' } }),
        watchPublished('LUM-02', 'lumiere'),
      ], batchSize);
      expect(doc(docs, 'en:LUM-01').collection).to.deep.equal({ code: 'lumiere', name: 'Éclat' });
      expect(doc(docs, 'fr:LUM-01')).to.include({ sort_collection: 'eclat du jour', position: 5 });
      expect(doc(docs, 'fr:LUM-02').collection.name).to.equal('Éclat du jour');
      expect(doc(docs, 'en:REG-01').collection.name).to.equal('Collection regate');
    });
  }

  // In batches of one, the later events' batches read the withdrawn watch's documents back as the store's tombstones.
  for (const batchSize of [1, 100]) {
    it(`removes a withdrawn watch in both languages and ignores later events for it (batches of ${batchSize})`, async () => {
      const docs = await given<WatchDoc>(watchesProjection, [
        lumiere, published, watchWithdrawn('LUM-01'), watchPriceChanged('LUM-01', 5_000, 1_250_050),
      ], batchSize);
      expect([...docs.values()].filter((d) => d.lang !== undefined)).to.deep.equal([]);
      // Left: the collection's names and the record of the withdrawal, at the withdrawal's position, and nothing else.
      expect([...docs.keys()].sort()).to.deep.equal(['collection:lumiere', 'withdrawn:LUM-01']);
      expect(doc(docs, 'withdrawn:LUM-01')).to.include({ position: 3 });
    });
  }

  it('refuses a publication older than the withdrawal delivered again, and publishes the watch again after it', async () => {
    const [, republished] = positioned([published, published], 4);
    const withdrawnAt3 = await given<WatchesProjectionDoc>(watchesProjection, [lumiere, published, watchWithdrawn('LUM-01')]);
    const [replayed] = positioned([published], 2);
    expect(watchesProjection.apply(replayed!, withdrawnAt3)).to.deep.equal([]);
    const again = watchesProjection.apply(republished!, withdrawnAt3);
    expect(again.map((change) => ('put' in change ? change.put._id : change.delete))).to.deep.equal(['en:LUM-01', 'fr:LUM-01']);
  });

  it('changes no watch for a collection revision that keeps the name', async () => {
    const before = await given<WatchesProjectionDoc>(watchesProjection, [lumiere, published]);
    const after = await given<WatchesProjectionDoc>(watchesProjection, [lumiere, published, event('CollectionRevised', { code: 'lumiere', diameter_mm: 40 })]);
    expect(after).to.deep.equal(before);
  });

  it('refuses a watch of a collection it never saw defined', async () => {
    let failure: unknown;
    await given(watchesProjection, [watchPublished('X-1', 'nowhere')]).catch((error: unknown) => { failure = error; });
    expect(String(failure)).to.match(/WatchPublished at position 1: WatchPublished at position 1 needs document collection:nowhere, which does not exist$/);
  });
});
