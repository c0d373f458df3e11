import { expect } from 'chai';
import {
  collectionDefined, serialRecovered, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished,
  watchStockChanged, watchWithdrawn,
} from '../../fixtures/events.ts';
import { EVENT_TYPES, type DomainEvent, type EventType } from '../../../shared/events/index.ts';
import type { StoredDoc } from '../../../shared/ports/read-store.ts';
import { READ_MODEL_PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import { event, given, positioned } from './support/projection-spec.ts';

/**
 * One event of every type, all about the same collection, watch and serial, so that an event a projection does not
 * handle names documents that the projection does hold.
 */
const SAMPLES: Record<EventType, DomainEvent> = {
  CollectionDefined: collectionDefined('lumiere', { name: { en: 'Lumière', fr: 'Lumière' } }),
  CollectionRevised: event('CollectionRevised', { code: 'lumiere', name: { en: 'Lumen', fr: 'Lumen' }, diameter_mm: 41 }),
  WatchPublished: watchPublished('LUM-01', 'lumiere', { customizable: true }),
  WatchRevised: event('WatchRevised', { reference: 'LUM-01', name: { en: 'Lumière Night', fr: 'Lumière Nuit' } }),
  WatchPriceChanged: watchPriceChanged('LUM-01', 1_300_000, 1_250_000),
  WatchStockChanged: watchStockChanged('LUM-01', 'low_stock'),
  WatchWithdrawn: watchWithdrawn('LUM-01'),
  ConfiguratorOptionOffered: event('ConfiguratorOptionOffered', {
    collection: 'lumiere', category: 'dial', code: 'black', label: { en: 'Black', fr: 'Noir' }, price_cents: 10_000,
  }),
  ConfiguratorOptionRepriced: event('ConfiguratorOptionRepriced', { collection: 'lumiere', category: 'dial', code: 'black', price_cents: 12_000 }),
  ConfiguratorOptionWithdrawn: event('ConfiguratorOptionWithdrawn', { collection: 'lumiere', category: 'dial', code: 'black' }),
  ConfiguratorDefaultChosen: event('ConfiguratorDefaultChosen', { collection: 'lumiere', category: 'dial', code: 'black' }),
  AccessoryOffered: event('AccessoryOffered', {
    collection: 'lumiere', code: 'strap', label: { en: 'Strap', fr: 'Bracelet' }, unit_price_cents: 25_000, max_quantity: 2,
  }),
  AccessoryRepriced: event('AccessoryRepriced', { collection: 'lumiere', code: 'strap', unit_price_cents: 27_000 }),
  AccessoryWithdrawn: event('AccessoryWithdrawn', { collection: 'lumiere', code: 'strap' }),
  SerialRegistered: serialRegistered('LUM-0001', { reference: 'LUM-01', collection: 'lumiere' }),
  SerialReportedStolen: serialReportedStolen('LUM-0001'),
  SerialRecovered: serialRecovered('LUM-0001'),
};

/** What every projection holds after the collection, watch and serial are defined, published and registered. */
const HISTORY = [SAMPLES.CollectionDefined, SAMPLES.WatchPublished, SAMPLES.ConfiguratorOptionOffered, SAMPLES.AccessoryOffered, SAMPLES.SerialRegistered];

// ARCHITECTURE.md: a projection applies the event types it handles; the others only move its checkpoint. The runner
// and the rebuild skip those types before asking the projection, so its answer for them is checked here, directly:
// nothing touched, nothing changed, even with the documents such an event names at hand.
describe('event types a projection does not handle', () => {
  for (const projection of READ_MODEL_PROJECTIONS) {
    const unhandled = EVENT_TYPES.filter((type) => !projection.handles.has(type));

    it(`${projection.name}: touches no document for any of them (${unhandled.length} types)`, () => {
      expect(unhandled).to.not.be.empty;
      for (const type of unhandled) {
        const [sample] = positioned([SAMPLES[type]], 100);
        expect(projection.touches(sample!), type).to.deep.equal({ ids: [] });
      }
    });

    it(`${projection.name}: changes none of the documents it holds for any of them`, async () => {
      const held = await given<StoredDoc>(projection, HISTORY);
      expect(held.size, 'documents held after the history').to.be.greaterThan(0);
      for (const type of unhandled) {
        const [sample] = positioned([SAMPLES[type]], 100);
        expect(projection.apply(sample!, held), type).to.deep.equal([]);
      }
    });
  }
});
