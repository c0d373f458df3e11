/**
 * The collections projection and what the collections operation answers from it (docs/api.md: `product_count` and
 * `price_range_eur` are over the collection's published, not withdrawn, watches and follow every price change and
 * withdrawal; `null` range when the collection has no watch), in both languages.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { collectionDefined, watchPriceChanged, watchPublished, watchWithdrawn } from '../../fixtures/events.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { DomainEvent } from '../../../shared/events/index.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { projectBatch } from '../../../shared/read-model/projections/batch.ts';
import { collectionsProjection } from '../../../shared/read-model/projections/collections.projection.ts';
import { collectionsOperation } from '../../../shared/read-model/public-api/operations/collections.operation.ts';
import type { OperationEnv } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import type { CollectionDoc } from '../../../shared/read-model/documents/documents.ts';
import { FIRST_GENERATION } from '../../../shared/ports/read-store.ts';
import { doc, event, given, positioned, project } from './support/projection-spec.ts';

const abysse = collectionDefined('abysse', {
  name: { en: 'Abyss', fr: 'Abysse' },
  short_description: { en: 'Divers.', fr: 'Plongée.' },
  description: { en: 'Diving watches.', fr: 'Montres de plongée.' },
  type: 'diver',
  diameter_mm: 42,
});

interface Listed { code: string; name: string; product_count: number; price_range_eur: { min: number; max: number } | null }

/** The store after `events`, projected in batches of `batchSize`. */
async function projected(events: readonly DomainEvent[], batchSize?: number): Promise<ReadStore> {
  const store = createMemoryReadStore();
  await project(store, collectionsProjection, positioned(events), batchSize);
  return store;
}

/** The collections operation's answer in `lang`, by code. */
async function listed(store: ReadStore, lang: 'en' | 'fr'): Promise<Map<string, Listed>> {
  const answer = await collectionsOperation.handle({ query: { lang }, path: {} } as never, { readStore: store } as Partial<OperationEnv> as OperationEnv);
  const { collections } = answer.body as { collections: Listed[] };
  return new Map(collections.map((collection) => [collection.code, collection]));
}

describe('collections projection', () => {
  it('defines one document per language; listed with no watch and no price range', async () => {
    const docs = await given<CollectionDoc>(collectionsProjection, [abysse]);
    expect(doc(docs, 'en:abysse')).to.deep.equal({
      _id: 'en:abysse', lang: 'en', code: 'abysse', name: 'Abyss', short_description: 'Divers.',
      description: 'Diving watches.', type: 'diver', diameter_mm: 42, sort_name: 'abyss', position: 1,
    });
    expect(doc(docs, 'fr:abysse')).to.include({ name: 'Abysse', description: 'Montres de plongée.', sort_name: 'abysse' });
    const store = await projected([abysse]);
    for (const lang of ['en', 'fr'] as const) {
      expect((await listed(store, lang)).get('abysse')).to.include({ product_count: 0, price_range_eur: null });
    }
  });

  it('counts published watches and spans their prices through price changes and withdrawals, in both languages', async () => {
    const store = await projected([
      abysse, collectionDefined('regate'),
      watchPublished('ABY-1', 'abysse', { price_cents: 500_000 }),
      watchPublished('ABY-2', 'abysse', { price_cents: 800_000 }),
      watchPublished('ABY-3', 'abysse', { price_cents: 650_050 }),
      watchPublished('REG-1', 'regate', { price_cents: 100 }),
      watchPriceChanged('ABY-2', 700_000, 800_000),
      watchWithdrawn('ABY-1'),
    ]);
    for (const lang of ['en', 'fr'] as const) {
      const collections = await listed(store, lang);
      expect(collections.get('abysse')).to.deep.include({ product_count: 2, price_range_eur: { min: 6500.5, max: 7000 } });
      expect(collections.get('regate')).to.deep.include({ product_count: 1, price_range_eur: { min: 1, max: 1 } });
    }
  });

  it('goes back to no range when its last watch is withdrawn', async () => {
    const store = await projected([abysse, watchPublished('ABY-1', 'abysse'), watchWithdrawn('ABY-1')]);
    expect((await listed(store, 'fr')).get('abysse')).to.deep.include({ product_count: 0, price_range_eur: null });
  });

  it('moves a watch published again into another collection out of the first one', async () => {
    const store = await projected([
      abysse, collectionDefined('regate'),
      watchPublished('W-1', 'abysse', { price_cents: 100_000 }), watchPublished('W-2', 'abysse', { price_cents: 300_000 }),
      watchWithdrawn('W-1'), watchPublished('W-1', 'regate', { price_cents: 200_000 }),
      watchPriceChanged('W-1', 250_000, 200_000),
    ]);
    for (const lang of ['en', 'fr'] as const) {
      const collections = await listed(store, lang);
      expect(collections.get('abysse')).to.deep.include({ product_count: 1, price_range_eur: { min: 3000, max: 3000 } });
      expect(collections.get('regate')).to.deep.include({ product_count: 1, price_range_eur: { min: 2500, max: 2500 } });
    }
  });

  it('refuses an older publication delivered again after the withdrawal', async () => {
    const store = await projected([abysse, watchPublished('ABY-1', 'abysse'), watchWithdrawn('ABY-1')]);
    const [, publication] = positioned([abysse, watchPublished('ABY-1', 'abysse')]);
    const ops = await projectBatch(collectionsProjection, [publication!], store.generation('collections', FIRST_GENERATION));
    await store.write('collections', ops);
    expect((await listed(store, 'en')).get('abysse')).to.deep.include({ product_count: 0, price_range_eur: null });
  });

  it('writes one small record per price change, whatever the size of the collection (issue 20, case 5)', async () => {
    // Seen failing before: each price change rewrote both languages' documents with every member's price.
    const written: number[] = [];
    for (const size of [3, 300]) {
      const publications = Array.from({ length: size }, (_, i) => watchPublished(`W-${i}`, 'abysse', { price_cents: 100_000 + i }));
      const store = await projected([abysse, ...publications]);
      const [change] = positioned([watchPriceChanged('W-1', 99, 100_001)], size + 2);
      const ops = await projectBatch(collectionsProjection, [change!], store.generation('collections', FIRST_GENERATION));
      expect(ops, `writes of one price change in a collection of ${size}`).to.have.length(1);
      written.push(JSON.stringify(ops).length);
      expect(written.at(-1), `bytes written for a collection of ${size}`).to.be.below(200);
      await store.write('collections', ops);
      expect((await listed(store, 'fr')).get('abysse')).to.deep.include({ product_count: size, price_range_eur: { min: 0.99, max: (100_000 + size - 1) / 100 } });
    }
    // The two differ only by the digits of the position.
    expect(written[1]! - written[0]!, 'bytes written for a collection of 300 against one of 3').to.be.at.most(2);
  });

  it('applies a revision to the fields it names, in each language', async () => {
    const docs = await given<CollectionDoc>(collectionsProjection, [
      abysse, event('CollectionRevised', { code: 'abysse', name: { en: 'Deep', fr: 'Profondeur' }, diameter_mm: 44 }),
    ]);
    expect(doc(docs, 'en:abysse')).to.include({
      name: 'Deep', sort_name: 'deep', diameter_mm: 44, description: 'Diving watches.', short_description: 'Divers.', type: 'diver',
    });
    expect(doc(docs, 'fr:abysse')).to.include({ name: 'Profondeur', diameter_mm: 44, description: 'Montres de plongée.' });
    // A revision that names other fields leaves the name, and its sort key, as they were.
    const retyped = await given<CollectionDoc>(collectionsProjection, [
      abysse, event('CollectionRevised', { code: 'abysse', type: 'sport', description: { en: 'Deep.', fr: 'Profond.' } }),
    ]);
    expect(doc(retyped, 'en:abysse')).to.include({ name: 'Abyss', sort_name: 'abyss', type: 'sport', description: 'Deep.', diameter_mm: 42 });
  });

  it('applies a revision of the short description alone, and none to a collection never defined', async () => {
    const docs = await given<CollectionDoc>(collectionsProjection, [abysse, event('CollectionRevised', { code: 'abysse', short_description: { en: 'Deep divers.', fr: 'Grands fonds.' } })]);
    expect(doc(docs, 'fr:abysse')).to.include({ short_description: 'Grands fonds.', name: 'Abysse', position: 2 });
    const none = await given<CollectionDoc>(collectionsProjection, [event('CollectionRevised', { code: 'nowhere', name: { en: 'N', fr: 'N' } })]);
    expect([...none.keys()]).to.deep.equal([]);
  });

  it('counts a watch of a collection never defined nowhere, and changes nothing for the price or withdrawal of a watch withdrawn', async () => {
    const orphan = await given(collectionsProjection, [abysse, watchPublished('X-1', 'nowhere')]);
    expect([...orphan.keys()].sort()).to.deep.equal(['en:abysse', 'fr:abysse']);
    const withdrawn = [abysse, watchPublished('ABY-1', 'abysse', { price_cents: 100_000 }), watchWithdrawn('ABY-1')];
    const expected = await given(collectionsProjection, withdrawn);
    expect(doc(expected, 'member:ABY-1')).to.deep.equal({ _id: 'member:ABY-1', reference: 'ABY-1', position: 3 });
    expect(await given(collectionsProjection, [...withdrawn, watchPriceChanged('ABY-1', 90_000, 100_000), watchWithdrawn('ABY-1')])).to.deep.equal(expected);
    const never = await given(collectionsProjection, [abysse, watchPriceChanged('ABY-2', 90_000, 100_000), watchWithdrawn('ABY-2')]);
    expect([...never.keys()].sort()).to.deep.equal(['en:abysse', 'fr:abysse']);
  });

  it('keeps count and price range equal to a model computed from the same publish, reprice, withdraw and move events', async () => {
    const references = ['W-1', 'W-2', 'W-3', 'W-4'];
    const codes = ['abysse', 'regate'] as const;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('publish' as const), ref: fc.constantFrom(...references), code: fc.constantFrom(...codes), price: fc.integer({ min: 1, max: 5_000_000 }) }),
      fc.record({ kind: fc.constant('reprice' as const), ref: fc.constantFrom(...references), price: fc.integer({ min: 1, max: 5_000_000 }) }),
      fc.record({ kind: fc.constant('withdraw' as const), ref: fc.constantFrom(...references) }),
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (steps, batchSize) => {
      // The model: the catalogue as a decider would allow it (publish only when absent, reprice and withdraw only when present).
      const members = new Map<string, { code: string; price: number }>();
      const events: DomainEvent[] = [abysse, collectionDefined('regate')];
      for (const s of steps) {
        const current = members.get(s.ref);
        if (s.kind === 'publish' && current === undefined) {
          members.set(s.ref, { code: s.code, price: s.price });
          events.push(watchPublished(s.ref, s.code, { price_cents: s.price }));
        } else if (s.kind === 'reprice' && current !== undefined && current.price !== s.price) {
          events.push(watchPriceChanged(s.ref, s.price, current.price));
          current.price = s.price;
        } else if (s.kind === 'withdraw' && current !== undefined) {
          members.delete(s.ref);
          events.push(watchWithdrawn(s.ref));
        }
      }
      const store = await projected(events, batchSize);
      for (const lang of ['en', 'fr'] as const) {
        const collections = await listed(store, lang);
        for (const code of codes) {
          const prices = [...members.values()].filter((member) => member.code === code).map((member) => member.price / 100);
          const expected = prices.length === 0 ? null : { min: Math.min(...prices), max: Math.max(...prices) };
          expect(collections.get(code)).to.deep.include({ product_count: prices.length, price_range_eur: expected });
        }
      }
    }), { seed: 20250115, numRuns: 100 });
  });
});
