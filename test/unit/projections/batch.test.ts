import { expect } from 'chai';
import {
  collectionDefined, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished, watchWithdrawn,
} from '../../fixtures/events.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { FIRST_GENERATION } from '../../../shared/ports/read-store.ts';
import { PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import { projectBatch } from '../../../shared/read-model/projections/batch.ts';
import { collectionFigures } from '../../../shared/read-model/public-api/operations/collection-figures.ts';
import { doc, documents, event, positioned, project } from './support/projection-spec.ts';

const history = positioned([
  collectionDefined('tempo'),
  watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 100_000 }),
  watchPublished('TMP-2', 'tempo', { customizable: true, price_cents: 200_000 }),
  event('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'blue', label: { en: 'Blue', fr: 'Bleu' }, price_cents: 0 }),
  event('ConfiguratorDefaultChosen', { collection: 'tempo', category: 'dial', code: 'blue' }),
  serialRegistered('TMP-0001', { reference: 'TMP-1', collection: 'tempo' }),
  watchPriceChanged('TMP-1', 150_000, 100_000),
  event('CollectionRevised', { code: 'tempo', name: { en: 'Tempo II', fr: 'Tempo II' } }),
  serialReportedStolen('TMP-0001'),
  event('WatchRevised', { reference: 'TMP-1', name: { en: 'One', fr: 'Un' } }),
  watchWithdrawn('TMP-2'),
]);

const setup = [
  collectionDefined('tempo'),
  collectionDefined('aero'),
  watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 100_000 }),
  watchPublished('TMP-2', 'tempo', { customizable: true, price_cents: 200_000 }),
  watchPublished('AER-1', 'aero', { customizable: true, price_cents: 300_000 }),
];
const priceMoves = [
  watchPriceChanged('TMP-1', 110_000, 100_000),
  watchPriceChanged('AER-1', 310_000, 300_000),
  watchWithdrawn('TMP-2'),
  watchPriceChanged('TMP-1', 120_000, 110_000),
];

describe('batch application', () => {
  it('collections: a batch of price moves of watches in two stored collections updates both', async () => {
    const store = createMemoryReadStore();
    const collections = PROJECTIONS.find((projection) => projection.name === 'collections')!;
    await project(store, collections, positioned(setup));
    await project(store, collections, positioned(priceMoves, setup.length + 1));
    expect((await collectionFigures(store, 'tempo')).price_range_cents).to.deep.equal({ min: 120_000, max: 120_000 });
    expect((await collectionFigures(store, 'aero')).price_range_cents).to.deep.equal({ min: 310_000, max: 310_000 });
  });

  for (const projection of PROJECTIONS) {
    it(`${projection.name}: delivering a batch again, whole or in part, changes nothing`, async () => {
      const store = createMemoryReadStore();
      await project(store, projection, history);
      const before = await documents(store, projection);
      for (const replay of [history, history.slice(2, 7), history.slice(5)]) {
        const ops = await projectBatch(projection, replay, store.generation(projection.collection, FIRST_GENERATION));
        expect(ops.filter((op) => 'put' in op), 'puts of an already applied batch').to.deep.equal([]);
        await store.write(projection.collection, ops);
        expect(await documents(store, projection)).to.deep.equal(before);
      }
    });

    it(`${projection.name}: a batch naming watches of several stored collections reaches every document holding them`, async () => {
      const stored = positioned(setup);
      const changes = positioned(priceMoves, stored.length + 1);
      const inOneBatch = createMemoryReadStore();
      const oneByOne = createMemoryReadStore();
      await project(inOneBatch, projection, stored);
      await project(inOneBatch, projection, changes);
      await project(oneByOne, projection, [...stored, ...changes], 1);
      expect(await documents(inOneBatch, projection)).to.deep.equal(await documents(oneByOne, projection));
    });

    it(`${projection.name}: one batch or one event at a time gives the same documents`, async () => {
      const whole = createMemoryReadStore();
      const oneByOne = createMemoryReadStore();
      await project(whole, projection, history);
      await project(oneByOne, projection, history, 1);
      expect(await documents(whole, projection)).to.deep.equal(await documents(oneByOne, projection));
    });
  }
});
