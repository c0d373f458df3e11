/**
 * A collection's models (docs/api.md, configurator options: `models: [{model_ref, name, base_price_eur}]`) are its
 * published, customizable watches at their current catalogue price, read from the watches projection. Checked over
 * a history projected by the real projections: publications in two collections, a price change, a watch revised
 * to customizable and back, a rename, a withdrawal; the expected models are written out from that history.
 */
import { expect } from 'chai';
import { collectionDefined, watchPriceChanged, watchPublished, watchWithdrawn } from '../../fixtures/events.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import { collectionModel, collectionModels } from '../../../shared/read-model/public-api/operations/collection-models.ts';
import { event, positioned, project } from '../projections/support/projection-spec.ts';

const HISTORY = positioned([
  collectionDefined('tempo'), collectionDefined('abysse'),
  watchPublished('TMP-2', 'tempo', { customizable: true, price_cents: 900_000, name: { en: 'Two', fr: 'Deux' } }),
  watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 800_000, name: { en: 'One', fr: 'Un' } }),
  watchPublished('TMP-3', 'tempo', { customizable: false, price_cents: 700_000, name: { en: 'Three', fr: 'Trois' } }),
  watchPublished('TMP-4', 'tempo', { customizable: true, price_cents: 600_000 }),
  watchPublished('TMP-5', 'tempo', { customizable: true, price_cents: 500_000 }),
  watchPublished('ABY-1', 'abysse', { customizable: true, price_cents: 400_000 }),
  watchPriceChanged('TMP-2', 950_000, 900_000),
  event('WatchRevised', { reference: 'TMP-3', customizable: true }),
  event('WatchRevised', { reference: 'TMP-5', customizable: false }),
  event('WatchRevised', { reference: 'TMP-1', name: { en: 'First', fr: 'Premier' } }),
  watchWithdrawn('TMP-4'),
]);

describe('collection models, read from the watches', () => {
  const store = createMemoryReadStore();
  before(async () => {
    for (const projection of PROJECTIONS) await project(store, projection, HISTORY);
  });
  after(() => store.close());

  it('lists the customizable published watches of the collection by reference, at their current price and name', async () => {
    expect(await collectionModels(store, 'en', 'tempo')).to.deep.equal([
      { model_ref: 'TMP-1', name: 'First', base_price_cents: 800_000 },
      { model_ref: 'TMP-2', name: 'Two', base_price_cents: 950_000 },
      { model_ref: 'TMP-3', name: 'Three', base_price_cents: 700_000 },
    ]);
    expect((await collectionModels(store, 'fr', 'tempo')).map((m) => m.name)).to.deep.equal(['Premier', 'Deux', 'Trois']);
    expect(await collectionModels(store, 'en', 'abysse')).to.deep.equal([{ model_ref: 'ABY-1', name: 'Watch ABY-1', base_price_cents: 400_000 }]);
  });

  it('finds one model in any case, only among the customizable watches of its own collection, and says why another is none', async () => {
    expect(await collectionModel(store, 'fr', 'tempo', 'tmp-2')).to.deep.equal({ model_ref: 'TMP-2', name: 'Deux', base_price_cents: 950_000 });
    expect(await collectionModel(store, 'en', 'tempo', 'ABY-1'), 'another collection')
      .to.deep.equal({ refused: "model 'ABY-1' is a watch of collection 'abysse', not of collection 'tempo'" });
    expect(await collectionModel(store, 'en', 'tempo', 'TMP-5'), 'no longer customizable')
      .to.deep.equal({ refused: "watch 'TMP-5' of collection 'tempo' is not customizable" });
    expect(await collectionModel(store, 'en', 'tempo', 'tmp-4'), 'withdrawn').to.deep.equal({ refused: "model 'tmp-4' has been withdrawn from the catalogue" });
    expect(await collectionModel(store, 'en', 'tempo', 'TMP-9'), 'never published').to.deep.equal({ refused: "unknown model 'TMP-9'" });
  });
});
