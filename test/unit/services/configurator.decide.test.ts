import { configuratorDecider } from '../../../services/write/configurator/configurator.decide.ts';
import type { CollectionState } from '../../../services/write/collection/collection.state.ts';
import { aCollection, anAccessory, anOption, event } from './support/builders.ts';
import { deciderSpec } from './support/decider-spec.ts';

const spec = deciderSpec(configuratorDecider);
const context = { collection: { defined: true, collection: aCollection() } as CollectionState };
const white = anOption();
const black = anOption({ code: 'black', label: { en: 'Black', fr: 'Noir' }, price_cents: 50_000 });
const dialKey = (code: string) => ({ collection: 'lumiere', category: 'dial' as const, code });
const whiteDefault = [event('ConfiguratorOptionOffered', white), event('ConfiguratorDefaultChosen', dialKey('white'))];
const twoDials = [...whiteDefault, event('ConfiguratorOptionOffered', black)];
const strap = anAccessory();
const strapKey = { collection: 'lumiere', code: 'strap' };

describe('configurator decider', () => {
  describe('options', () => {
    it('makes the first option offered in a category its default', () => {
      spec.given([], context).when({ type: 'OfferOption', option: white }).then(whiteDefault);
    });

    it('offers a further option without changing the default', () => {
      spec.given(whiteDefault, context).when({ type: 'OfferOption', option: black }).then([event('ConfiguratorOptionOffered', black)]);
    });

    it('accepts the same code in another category', () => {
      const caseWhite = anOption({ category: 'case', code: 'white' });
      spec.given(whiteDefault, context).when({ type: 'OfferOption', option: caseWhite }).then([
        event('ConfiguratorOptionOffered', caseWhite),
        event('ConfiguratorDefaultChosen', { collection: 'lumiere', category: 'case', code: 'white' }),
      ]);
    });

    it('refuses an option code already offered in its category', () => {
      spec.given(whiteDefault, context).when({ type: 'OfferOption', option: { ...white, price_cents: 100 } })
        .thenRefuses('conflict', 'option white in category dial of collection lumiere is already offered');
    });

    it('refuses an option in a collection that is not defined', () => {
      spec.given([], { collection: { defined: false } }).when({ type: 'OfferOption', option: white })
        .thenRefuses('not_found', 'unknown collection lumiere');
    });

    it('refuses an option with a blank label', () => {
      spec.given([], context).when({ type: 'OfferOption', option: anOption({ label: { en: 'White', fr: '' } }) })
        .thenRefuses('invalid', 'label is empty in fr');
    });

    it('refuses a negative option price', () => {
      spec.given([], context).when({ type: 'OfferOption', option: anOption({ price_cents: -1 }) })
        .thenRefuses('invalid', /price must be zero or a positive whole number of cents/);
    });

    it('reprices an option', () => {
      spec.given(twoDials, context).when({ type: 'RepriceOption', option: dialKey('black'), price_cents: 60_000 })
        .then([event('ConfiguratorOptionRepriced', { ...dialKey('black'), price_cents: 60_000 })]);
    });

    it('emits nothing when repricing an option to its current price', () => {
      spec.given(twoDials, context).when({ type: 'RepriceOption', option: dialKey('black'), price_cents: 50_000 }).then([]);
    });

    // Mutation survivors (issue 31): the surcharge check of a repricing, and a category never offered.
    it('refuses to reprice an option to a negative price, naming the price, and an option of a category never offered', () => {
      spec.given(twoDials, context).when({ type: 'RepriceOption', option: dialKey('black'), price_cents: -1 })
        .thenRefuses('invalid', /^price must be zero or a positive whole number of cents/);
      spec.given(twoDials, context).when({ type: 'RepriceOption', option: { ...dialKey('white'), category: 'case' }, price_cents: 1 })
        .thenRefuses('not_found', 'unknown option white in category case of collection lumiere');
    });

    it('compares a repricing with the last price: the same again emits nothing, the former one a repricing', () => {
      const repriced = [...twoDials, event('ConfiguratorOptionRepriced', { ...dialKey('black'), price_cents: 60_000 })];
      spec.given(repriced, context).when({ type: 'RepriceOption', option: dialKey('black'), price_cents: 60_000 }).then([]);
      spec.given(repriced, context).when({ type: 'RepriceOption', option: dialKey('black'), price_cents: 50_000 })
        .then([event('ConfiguratorOptionRepriced', { ...dialKey('black'), price_cents: 50_000 })]);
    });

    it('keeps the other options and the default of a category once an option is withdrawn', () => {
      const blue = anOption({ code: 'blue', label: { en: 'Blue', fr: 'Bleu' }, price_cents: 1_000 });
      const withdrawn = [...twoDials, event('ConfiguratorOptionWithdrawn', dialKey('black'))];
      // white is still the default, so a new option is offered without becoming it.
      spec.given(withdrawn, context).when({ type: 'OfferOption', option: blue }).then([event('ConfiguratorOptionOffered', blue)]);
      spec.given(withdrawn, context).when({ type: 'ChooseDefaultOption', option: dialKey('white') }).then([]);
    });

    it('refuses to reprice an unknown option', () => {
      spec.given(twoDials, context).when({ type: 'RepriceOption', option: dialKey('blue'), price_cents: 1 })
        .thenRefuses('not_found', 'unknown option blue in category dial of collection lumiere');
    });

    it('withdraws an option that is not the default', () => {
      spec.given(twoDials, context).when({ type: 'WithdrawOption', option: dialKey('black') })
        .then([event('ConfiguratorOptionWithdrawn', dialKey('black'))]);
    });

    it('refuses to withdraw the default while other options of its category remain', () => {
      spec.given(twoDials, context).when({ type: 'WithdrawOption', option: dialKey('white') })
        .thenRefuses('conflict', /option white in category dial of collection lumiere is the default and 1 other option\(s\) remain/);
    });

    it('withdraws the default when it is the last option of its category', () => {
      spec.given(whiteDefault, context).when({ type: 'WithdrawOption', option: dialKey('white') })
        .then([event('ConfiguratorOptionWithdrawn', dialKey('white'))]);
    });

    it('makes the next option offered the default once a category was emptied', () => {
      spec.given([...whiteDefault, event('ConfiguratorOptionWithdrawn', dialKey('white'))], context)
        .when({ type: 'OfferOption', option: black })
        .then([event('ConfiguratorOptionOffered', black), event('ConfiguratorDefaultChosen', dialKey('black'))]);
    });

    it('refuses to withdraw an unknown option', () => {
      spec.given([], context).when({ type: 'WithdrawOption', option: dialKey('white') })
        .thenRefuses('not_found', 'unknown option white in category dial of collection lumiere');
    });

    it('chooses another default among the offered options', () => {
      spec.given(twoDials, context).when({ type: 'ChooseDefaultOption', option: dialKey('black') })
        .then([event('ConfiguratorDefaultChosen', dialKey('black'))]);
    });

    it('emits nothing when choosing the current default', () => {
      spec.given(twoDials, context).when({ type: 'ChooseDefaultOption', option: dialKey('white') }).then([]);
    });

    it('refuses to choose an unknown option as default', () => {
      spec.given(twoDials, context).when({ type: 'ChooseDefaultOption', option: dialKey('blue') })
        .thenRefuses('not_found', 'unknown option blue in category dial of collection lumiere');
    });

    it('lets the former default be withdrawn once another default was chosen', () => {
      spec.given([...twoDials, event('ConfiguratorDefaultChosen', dialKey('black'))], context)
        .when({ type: 'WithdrawOption', option: dialKey('white') })
        .then([event('ConfiguratorOptionWithdrawn', dialKey('white'))]);
    });
  });

  describe('codes named like Object built-ins (issue 17, finding 7)', () => {
    const builtIn = anOption({ code: 'constructor' });
    const builtInAccessory = anAccessory({ code: 'constructor' });

    it('offers an option or an accessory coded constructor: no plain-object lookup takes it for offered', () => {
      spec.given([], context).when({ type: 'OfferOption', option: builtIn }).then([
        event('ConfiguratorOptionOffered', builtIn), event('ConfiguratorDefaultChosen', dialKey('constructor')),
      ]);
      spec.given([], context).when({ type: 'OfferAccessory', accessory: builtInAccessory }).then([event('AccessoryOffered', builtInAccessory)]);
    });

    it('refuses to reprice, withdraw or choose an option or accessory coded constructor that was never offered', () => {
      const unknownOption = 'unknown option constructor in category dial of collection lumiere';
      spec.given(whiteDefault, context).when({ type: 'RepriceOption', option: dialKey('constructor'), price_cents: 1 }).thenRefuses('not_found', unknownOption);
      spec.given(whiteDefault, context).when({ type: 'WithdrawOption', option: dialKey('constructor') }).thenRefuses('not_found', unknownOption);
      spec.given(whiteDefault, context).when({ type: 'ChooseDefaultOption', option: dialKey('constructor') }).thenRefuses('not_found', unknownOption);
      const unknownAccessory = 'unknown accessory constructor of collection lumiere';
      const key = { collection: 'lumiere', code: 'constructor' };
      spec.given([], context).when({ type: 'RepriceAccessory', accessory: key, unit_price_cents: 1 }).thenRefuses('not_found', unknownAccessory);
      spec.given([], context).when({ type: 'WithdrawAccessory', accessory: key }).thenRefuses('not_found', unknownAccessory);
    });
  });

  describe('accessories', () => {
    it('offers an accessory', () => {
      spec.given([], context).when({ type: 'OfferAccessory', accessory: strap }).then([event('AccessoryOffered', strap)]);
    });

    it('refuses an accessory code already offered', () => {
      spec.given([event('AccessoryOffered', strap)], context).when({ type: 'OfferAccessory', accessory: strap })
        .thenRefuses('conflict', 'accessory strap of collection lumiere is already offered');
    });

    it('refuses an accessory with a maximum quantity of zero', () => {
      spec.given([], context).when({ type: 'OfferAccessory', accessory: anAccessory({ max_quantity: 0 }) })
        .thenRefuses('invalid', /max quantity of accessory strap of collection lumiere must be a whole number of at least 1, got 0/);
    });

    it('refuses an accessory in a collection that is not defined', () => {
      spec.given([], { collection: { defined: false } }).when({ type: 'OfferAccessory', accessory: strap })
        .thenRefuses('not_found', 'unknown collection lumiere');
    });

    it('refuses an accessory with a blank label', () => {
      spec.given([], context).when({ type: 'OfferAccessory', accessory: anAccessory({ label: { en: ' ', fr: 'x' } }) })
        .thenRefuses('invalid', 'label is empty in en');
    });

    it('reprices an accessory, and emits nothing for its current price', () => {
      spec.given([event('AccessoryOffered', strap)], context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: 30_000 })
        .then([event('AccessoryRepriced', { ...strapKey, unit_price_cents: 30_000 })]);
      spec.given([event('AccessoryOffered', strap)], context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: 25_000 })
        .then([]);
    });

    it('refuses an accessory offered or repriced at a negative unit price, naming the unit price', () => {
      spec.given([], context).when({ type: 'OfferAccessory', accessory: anAccessory({ unit_price_cents: -1 }) })
        .thenRefuses('invalid', /^unit price must be zero or a positive whole number of cents/);
      spec.given([event('AccessoryOffered', strap)], context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: -1 })
        .thenRefuses('invalid', /^unit price must be zero or a positive whole number of cents/);
    });

    it('compares an accessory repricing with the last unit price: the same again emits nothing, the former one a repricing', () => {
      const repriced = [event('AccessoryOffered', strap), event('AccessoryRepriced', { ...strapKey, unit_price_cents: 30_000 })];
      spec.given(repriced, context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: 30_000 }).then([]);
      spec.given(repriced, context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: 25_000 })
        .then([event('AccessoryRepriced', { ...strapKey, unit_price_cents: 25_000 })]);
    });

    it('refuses to reprice an unknown accessory', () => {
      spec.given([], context).when({ type: 'RepriceAccessory', accessory: strapKey, unit_price_cents: 1 })
        .thenRefuses('not_found', 'unknown accessory strap of collection lumiere');
    });

    it('withdraws an accessory, after which it can be offered again', () => {
      spec.given([event('AccessoryOffered', strap)], context).when({ type: 'WithdrawAccessory', accessory: strapKey })
        .then([event('AccessoryWithdrawn', strapKey)]);
      spec.given([event('AccessoryOffered', strap), event('AccessoryWithdrawn', strapKey)], context)
        .when({ type: 'OfferAccessory', accessory: strap }).then([event('AccessoryOffered', strap)]);
    });

    it('refuses to withdraw an unknown accessory', () => {
      spec.given([], context).when({ type: 'WithdrawAccessory', accessory: strapKey })
        .thenRefuses('not_found', 'unknown accessory strap of collection lumiere');
    });
  });
});
