import { expect } from 'chai';
import fc from 'fast-check';
import { collectionDefined, watchPriceChanged, watchPublished, watchWithdrawn } from '../../fixtures/events.ts';
import type { DomainEvent } from '../../../shared/events/index.ts';
import type { CollectionProjectionDoc } from '../../../shared/projections/collections.projection.ts';
import { collectionsProjection } from '../../../shared/projections/collections.projection.ts';
import { doc, event, given } from './support/projection-spec.ts';

const abysse = collectionDefined('abysse', {
  name: { en: 'Abyss', fr: 'Abysse' },
  short_description: { en: 'Divers.', fr: 'Plongée.' },
  description: { en: 'Diving watches.', fr: 'Montres de plongée.' },
  type: 'diver',
  diameter_mm: 42,
});

describe('collections projection', () => {
  it('defines one document per language, empty: no watch, no price range', async () => {
    const docs = await given<CollectionProjectionDoc>(collectionsProjection, [abysse]);
    expect(doc(docs, 'en:abysse')).to.deep.equal({
      _id: 'en:abysse', lang: 'en', code: 'abysse', name: 'Abyss', short_description: 'Divers.',
      description: 'Diving watches.', type: 'diver', diameter_mm: 42, product_count: 0, price_range_cents: null,
      sort_name: 'abyss', member_prices: [], position: 1,
    });
    expect(doc(docs, 'fr:abysse')).to.include({ name: 'Abysse', description: 'Montres de plongée.', sort_name: 'abysse' });
  });

  it('counts published watches and spans their prices through price changes and withdrawals', async () => {
    const docs = await given<CollectionProjectionDoc>(collectionsProjection, [
      abysse, collectionDefined('regate'),
      watchPublished('ABY-1', 'abysse', { price_cents: 500_000 }),
      watchPublished('ABY-2', 'abysse', { price_cents: 800_000 }),
      watchPublished('ABY-3', 'abysse', { price_cents: 650_000 }),
      watchPublished('REG-1', 'regate', { price_cents: 100 }),
      watchPriceChanged('ABY-2', 700_000, 800_000),
      watchWithdrawn('ABY-1'),
    ]);
    for (const id of ['en:abysse', 'fr:abysse']) {
      expect(doc(docs, id)).to.deep.include({ product_count: 2, price_range_cents: { min: 650_000, max: 700_000 }, position: 8 });
    }
    expect(doc(docs, 'en:regate')).to.deep.include({ product_count: 1, price_range_cents: { min: 100, max: 100 } });
  });

  it('goes back to no range when its last watch is withdrawn', async () => {
    const docs = await given<CollectionProjectionDoc>(collectionsProjection, [abysse, watchPublished('ABY-1', 'abysse'), watchWithdrawn('ABY-1')]);
    expect(doc(docs, 'fr:abysse')).to.deep.include({ product_count: 0, price_range_cents: null });
  });

  it('applies a revision to the fields it names, in each language', async () => {
    const docs = await given<CollectionProjectionDoc>(collectionsProjection, [
      abysse, event('CollectionRevised', { code: 'abysse', name: { en: 'Deep', fr: 'Profondeur' }, diameter_mm: 44 }),
    ]);
    expect(doc(docs, 'en:abysse')).to.include({
      name: 'Deep', sort_name: 'deep', diameter_mm: 44, description: 'Diving watches.', short_description: 'Divers.', type: 'diver',
    });
    expect(doc(docs, 'fr:abysse')).to.include({ name: 'Profondeur', diameter_mm: 44, description: 'Montres de plongée.' });
    // A revision that names other fields leaves the name, and its sort key, as they were.
    const retyped = await given<CollectionProjectionDoc>(collectionsProjection, [
      abysse, event('CollectionRevised', { code: 'abysse', type: 'sport', description: { en: 'Deep.', fr: 'Profond.' } }),
    ]);
    expect(doc(retyped, 'en:abysse')).to.include({ name: 'Abyss', sort_name: 'abyss', type: 'sport', description: 'Deep.', diameter_mm: 42 });
  });

  it('keeps count and price range equal to a model computed from the same publish, reprice and withdraw events', async () => {
    const references = ['W-1', 'W-2', 'W-3', 'W-4'];
    const step = fc.oneof(
      fc.record({ kind: fc.constant('publish' as const), ref: fc.constantFrom(...references), price: fc.integer({ min: 1, max: 5_000_000 }) }),
      fc.record({ kind: fc.constant('reprice' as const), ref: fc.constantFrom(...references), price: fc.integer({ min: 1, max: 5_000_000 }) }),
      fc.record({ kind: fc.constant('withdraw' as const), ref: fc.constantFrom(...references) }),
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (steps, batchSize) => {
      // The model: the catalogue as a decider would allow it (publish only when absent, reprice and withdraw only when present).
      const prices = new Map<string, number>();
      const events: DomainEvent[] = [abysse];
      for (const s of steps) {
        const current = prices.get(s.ref);
        if (s.kind === 'publish' && current === undefined) {
          prices.set(s.ref, s.price);
          events.push(watchPublished(s.ref, 'abysse', { price_cents: s.price }));
        } else if (s.kind === 'reprice' && current !== undefined && current !== s.price) {
          prices.set(s.ref, s.price);
          events.push(watchPriceChanged(s.ref, s.price, current));
        } else if (s.kind === 'withdraw' && current !== undefined) {
          prices.delete(s.ref);
          events.push(watchWithdrawn(s.ref));
        }
      }
      const docs = await given<CollectionProjectionDoc>(collectionsProjection, events, batchSize);
      const values = [...prices.values()];
      const expected = values.length === 0 ? null : { min: Math.min(...values), max: Math.max(...values) };
      for (const id of ['en:abysse', 'fr:abysse']) {
        expect(doc(docs, id).product_count).to.equal(prices.size);
        expect(doc(docs, id).price_range_cents).to.deep.equal(expected);
      }
    }), { seed: 20250115, numRuns: 100 });
  });
});
