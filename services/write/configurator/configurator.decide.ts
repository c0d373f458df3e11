/**
 * Rules of a configurator: options and accessories belong to a defined collection; an option code is unique in
 * its category and an accessory code in the configurator; the first option of a category becomes its default,
 * and the default stays while other options of its category remain; accessories allow at least one piece;
 * repricing to the current price or choosing the current default emits nothing.
 */
import { assertNever, type LocalizedText } from '../../../shared/events/index.ts';
import type { CollectionState } from '../collection/collection.state.ts';
import { badSurcharge } from '../domain/amounts.ts';
import type { Decider, Decision } from '../domain/decider.ts';
import { conflict, invalid, unknown } from '../domain/domain-error.ts';
import { firstBlankText } from '../domain/texts.ts';
import { ownEntry } from '../domain/own-entry.ts';
import { configuratorOf, type ConfiguratorCommand } from './configurator.commands.ts';
import {
  evolveConfigurator, initialConfiguratorState, type ConfiguratorEvent, type ConfiguratorState,
} from './configurator.state.ts';

/** The configurator's collection, which must be defined. */
export type ConfiguratorContext = { collection: CollectionState };

/** The text of an option or accessory that may not be blank (the catalogue file's check asks too). */
export function labelText(entry: { label: LocalizedText }): Record<string, LocalizedText> {
  return { label: entry.label };
}

type OptionKey = { collection: string; category: string; code: string };
const optionName = (o: OptionKey) => `option ${o.code} in category ${o.category} of collection ${o.collection}`;
const accessoryName = (a: { collection: string; code: string }) => `accessory ${a.code} of collection ${a.collection}`;

function decideConfigurator(
  command: ConfiguratorCommand, state: ConfiguratorState, context: ConfiguratorContext,
): Decision<ConfiguratorEvent> {
  const collection = configuratorOf(command);
  if (!context.collection.defined) return unknown('collection', collection);
  switch (command.type) {
    case 'OfferOption': {
      const { option } = command;
      const category = state.categories[option.category];
      if (category && Object.hasOwn(category.options, option.code)) return conflict(`${optionName(option)} is already offered`);
      const problem = firstBlankText(labelText(option)) ?? badSurcharge('price', option.price_cents);
      if (problem) return problem;
      const offered: ConfiguratorEvent = { type: 'ConfiguratorOptionOffered', data: option };
      if (category?.defaultCode) return [offered];
      return [offered, { type: 'ConfiguratorDefaultChosen', data: { collection, category: option.category, code: option.code } }];
    }
    case 'RepriceOption': {
      const { option, price_cents } = command;
      const current = ownEntry(state.categories[option.category]?.options ?? {}, option.code);
      if (!current) return unknown('option', `${option.code} in category ${option.category} of collection ${collection}`);
      const problem = badSurcharge('price', price_cents);
      if (problem) return problem;
      return current.price_cents === price_cents ? [] : [{ type: 'ConfiguratorOptionRepriced', data: { ...option, price_cents } }];
    }
    case 'WithdrawOption': {
      const { option } = command;
      const category = state.categories[option.category];
      if (!category || !(Object.hasOwn(category.options, option.code))) {
        return unknown('option', `${option.code} in category ${option.category} of collection ${collection}`);
      }
      const others = Object.keys(category.options).length - 1;
      if (category.defaultCode === option.code && others > 0) {
        return conflict(`${optionName(option)} is the default and ${others} other option(s) remain: choose another default first`);
      }
      return [{ type: 'ConfiguratorOptionWithdrawn', data: option }];
    }
    case 'ChooseDefaultOption': {
      const { option } = command;
      const category = state.categories[option.category];
      if (!category || !(Object.hasOwn(category.options, option.code))) {
        return unknown('option', `${option.code} in category ${option.category} of collection ${collection}`);
      }
      return category.defaultCode === option.code ? [] : [{ type: 'ConfiguratorDefaultChosen', data: option }];
    }
    case 'OfferAccessory': {
      const { accessory } = command;
      if (Object.hasOwn(state.accessories, accessory.code)) return conflict(`${accessoryName(accessory)} is already offered`);
      if (!Number.isInteger(accessory.max_quantity) || accessory.max_quantity < 1) {
        return invalid(`max quantity of ${accessoryName(accessory)} must be a whole number of at least 1, got ${accessory.max_quantity}`);
      }
      const problem = firstBlankText(labelText(accessory)) ?? badSurcharge('unit price', accessory.unit_price_cents);
      if (problem) return problem;
      return [{ type: 'AccessoryOffered', data: accessory }];
    }
    case 'RepriceAccessory': {
      const { accessory, unit_price_cents } = command;
      const current = ownEntry(state.accessories, accessory.code);
      if (!current) return unknown('accessory', `${accessory.code} of collection ${collection}`);
      const problem = badSurcharge('unit price', unit_price_cents);
      if (problem) return problem;
      return current.unit_price_cents === unit_price_cents ? [] : [{ type: 'AccessoryRepriced', data: { ...accessory, unit_price_cents } }];
    }
    case 'WithdrawAccessory': {
      const { accessory } = command;
      if (!(Object.hasOwn(state.accessories, accessory.code))) return unknown('accessory', `${accessory.code} of collection ${collection}`);
      return [{ type: 'AccessoryWithdrawn', data: accessory }];
    }
    default:
      return assertNever(command);
  }
}

export const configuratorDecider: Decider<ConfiguratorCommand, ConfiguratorState, ConfiguratorEvent, ConfiguratorContext> = {
  initialState: initialConfiguratorState,
  evolve: evolveConfigurator,
  decide: decideConfigurator,
};
