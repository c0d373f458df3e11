import { watchDecider } from '../../../services/write/watch/watch.decide.ts';
import type { CollectionState } from '../../../services/write/collection/collection.state.ts';
import { aCollection, aWatch, event } from './support/builders.ts';
import { deciderSpec } from './support/decider-spec.ts';

const spec = deciderSpec(watchDecider);
const collection: CollectionState = { defined: true, collection: aCollection() };
const published = [event('WatchPublished', aWatch())];
const withdrawn = [...published, event('WatchWithdrawn', { reference: 'AUR-LU-001' })];
const ref = 'AUR-LU-001';

describe('watch decider', () => {
  describe('publishing', () => {
    it('publishes a watch into a defined collection', () => {
      spec.given([], { collection }).when({ type: 'PublishWatch', watch: aWatch() }).then([event('WatchPublished', aWatch())]);
    });

    it('refuses a watch whose collection is not defined', () => {
      spec.given([], { collection: { defined: false } }).when({ type: 'PublishWatch', watch: aWatch() })
        .thenRefuses('not_found', 'unknown collection lumiere');
    });

    it('refuses a watch published twice', () => {
      spec.given(published, { collection }).when({ type: 'PublishWatch', watch: aWatch() })
        .thenRefuses('conflict', 'watch AUR-LU-001 is already published');
    });

    it('refuses a price of zero', () => {
      spec.given([], { collection }).when({ type: 'PublishWatch', watch: aWatch({ price_cents: 0 }) })
        .thenRefuses('invalid', /price must be a positive whole number of cents/);
    });

    it('refuses a price that is not whole cents', () => {
      spec.given([], { collection }).when({ type: 'PublishWatch', watch: aWatch({ price_cents: 10.5 }) })
        .thenRefuses('invalid', /price must be a positive whole number of cents, got 10.5/);
    });

    it('refuses a description blank in French', () => {
      spec.given([], { collection }).when({ type: 'PublishWatch', watch: aWatch({ description: { en: 'Gold', fr: ' ' } }) })
        .thenRefuses('invalid', 'description is empty in fr');
    });
  });

  describe('price', () => {
    it('changes the price, recording the previous one', () => {
      spec.given(published, {}).when({ type: 'ChangeWatchPrice', reference: ref, price_cents: 1_300_000 })
        .then([event('WatchPriceChanged', { reference: ref, price_cents: 1_300_000, previous_price_cents: 1_250_000 })]);
    });

    it('emits nothing when the price is already the current one', () => {
      spec.given([...published, event('WatchPriceChanged', { reference: ref, price_cents: 900_000, previous_price_cents: 1_250_000 })], {})
        .when({ type: 'ChangeWatchPrice', reference: ref, price_cents: 900_000 }).then([]);
    });

    it('refuses a negative price', () => {
      spec.given(published, {}).when({ type: 'ChangeWatchPrice', reference: ref, price_cents: -100 })
        .thenRefuses('invalid', /price must be a positive whole number of cents/);
    });

    it('refuses a price on an unknown watch', () => {
      spec.given([], {}).when({ type: 'ChangeWatchPrice', reference: 'FOO-1', price_cents: 100 })
        .thenRefuses('not_found', 'unknown watch FOO-1');
    });
  });

  describe('stock', () => {
    it('changes the stock status', () => {
      spec.given(published, {}).when({ type: 'ChangeWatchStock', reference: ref, stock_status: 'low_stock' })
        .then([event('WatchStockChanged', { reference: ref, stock_status: 'low_stock' })]);
    });

    it('emits nothing when the stock status is already the current one', () => {
      spec.given([...published, event('WatchStockChanged', { reference: ref, stock_status: 'out_of_stock' })], {})
        .when({ type: 'ChangeWatchStock', reference: ref, stock_status: 'out_of_stock' }).then([]);
    });
  });

  describe('revision', () => {
    it('revises only the descriptive fields that change', () => {
      const name = { en: 'Lumière Slim', fr: 'Lumière Extra-plate' };
      spec.given(published, {}).when({ type: 'ReviseWatch', revision: { reference: ref, name, customizable: true } })
        .then([event('WatchRevised', { reference: ref, name })]);
    });

    it('emits nothing for a revision to the current values', () => {
      spec.given(published, {}).when({ type: 'ReviseWatch', revision: { reference: ref, images: aWatch().images } }).then([]);
    });

    it('refuses a revision with a blank name', () => {
      spec.given(published, {}).when({ type: 'ReviseWatch', revision: { reference: ref, name: { en: ' ', fr: 'Nom' } } })
        .thenRefuses('invalid', 'name is empty in en');
    });
  });

  describe('withdrawal', () => {
    it('withdraws a published watch', () => {
      spec.given(published, {}).when({ type: 'WithdrawWatch', reference: ref }).then([event('WatchWithdrawn', { reference: ref })]);
    });

    it('refuses to withdraw an unknown watch', () => {
      spec.given([], {}).when({ type: 'WithdrawWatch', reference: 'FOO-1' }).thenRefuses('not_found', 'unknown watch FOO-1');
    });

    for (const command of [
      { type: 'WithdrawWatch', reference: ref },
      { type: 'ChangeWatchPrice', reference: ref, price_cents: 1 },
      { type: 'ChangeWatchStock', reference: ref, stock_status: 'in_stock' },
      { type: 'ReviseWatch', revision: { reference: ref, customizable: false } },
    ] as const) {
      it(`refuses ${command.type} on a withdrawn watch`, () => {
        spec.given(withdrawn, {}).when(command).thenRefuses('conflict', 'watch AUR-LU-001 is withdrawn and takes no further changes');
      });
    }

    it('refuses to publish again a withdrawn watch', () => {
      spec.given(withdrawn, { collection }).when({ type: 'PublishWatch', watch: aWatch() })
        .thenRefuses('conflict', 'watch AUR-LU-001 is already published');
    });
  });
});
