/** Commands of the `configurator-{collection}` aggregate: the option table and accessories of one collection. */
import type { AccessoryOffered, CategoryKey, ConfiguratorOptionOffered } from '../../../shared/events/index.ts';

type OptionKey = { collection: string; category: CategoryKey; code: string };
type AccessoryKey = { collection: string; code: string };

/** The first option offered in a category becomes its default. */
type OfferOption = { type: 'OfferOption'; option: ConfiguratorOptionOffered };
type RepriceOption = { type: 'RepriceOption'; option: OptionKey; price_cents: number };
type WithdrawOption = { type: 'WithdrawOption'; option: OptionKey };
type ChooseDefaultOption = { type: 'ChooseDefaultOption'; option: OptionKey };
type OfferAccessory = { type: 'OfferAccessory'; accessory: AccessoryOffered };
type RepriceAccessory = { type: 'RepriceAccessory'; accessory: AccessoryKey; unit_price_cents: number };
type WithdrawAccessory = { type: 'WithdrawAccessory'; accessory: AccessoryKey };

export type ConfiguratorCommand =
  | OfferOption | RepriceOption | WithdrawOption | ChooseDefaultOption
  | OfferAccessory | RepriceAccessory | WithdrawAccessory;

/** The collection a configurator command is about (its stream). */
export function configuratorOf(command: ConfiguratorCommand): string {
  return 'option' in command ? command.option.collection : command.accessory.collection;
}
