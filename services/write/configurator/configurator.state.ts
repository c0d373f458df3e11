/** State of a configurator: the options of each offered category with its default, and the accessories. */
import { assertNever, type CategoryKey, type EventOf, type LocalizedText } from '../../../shared/events/index.ts';
import { ownEntry } from '../domain/own-entry.ts';

export type ConfiguratorEvent =
  | EventOf<'ConfiguratorOptionOffered'> | EventOf<'ConfiguratorOptionRepriced'> | EventOf<'ConfiguratorOptionWithdrawn'>
  | EventOf<'ConfiguratorDefaultChosen'> | EventOf<'AccessoryOffered'> | EventOf<'AccessoryRepriced'>
  | EventOf<'AccessoryWithdrawn'>;

type OptionState = { label: LocalizedText; price_cents: number };
/** `options` in the order they were offered; `defaultCode` is null only while the category has no option. */
type CategoryState = { options: Record<string, OptionState>; defaultCode: string | null };
type AccessoryState = { label: LocalizedText; unit_price_cents: number; max_quantity: number };

export type ConfiguratorState = {
  categories: Partial<Record<CategoryKey, CategoryState>>;
  accessories: Record<string, AccessoryState>;
};

export function initialConfiguratorState(): ConfiguratorState {
  return { categories: {}, accessories: {} };
}

function withCategory(state: ConfiguratorState, key: CategoryKey, change: (category: CategoryState) => CategoryState): ConfiguratorState {
  const category = state.categories[key] ?? { options: {}, defaultCode: null };
  return { ...state, categories: { ...state.categories, [key]: change(category) } };
}

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _removed, ...rest } = record;
  return rest;
}

export function evolveConfigurator(state: ConfiguratorState, event: ConfiguratorEvent): ConfiguratorState {
  switch (event.type) {
    case 'ConfiguratorOptionOffered': {
      const { category, code, label, price_cents } = event.data;
      return withCategory(state, category, (c) => ({ ...c, options: { ...c.options, [code]: { label, price_cents } } }));
    }
    case 'ConfiguratorOptionRepriced': {
      const { category, code, price_cents } = event.data;
      return withCategory(state, category, (c) => {
        const option = ownEntry(c.options, code);
        return option ? { ...c, options: { ...c.options, [code]: { ...option, price_cents } } } : c;
      });
    }
    case 'ConfiguratorOptionWithdrawn': {
      const { category, code } = event.data;
      return withCategory(state, category, (c) => ({
        options: without(c.options, code),
        defaultCode: c.defaultCode === code ? null : c.defaultCode,
      }));
    }
    case 'ConfiguratorDefaultChosen':
      return withCategory(state, event.data.category, (c) => ({ ...c, defaultCode: event.data.code }));
    case 'AccessoryOffered': {
      const { code, label, unit_price_cents, max_quantity } = event.data;
      return { ...state, accessories: { ...state.accessories, [code]: { label, unit_price_cents, max_quantity } } };
    }
    case 'AccessoryRepriced': {
      const accessory = ownEntry(state.accessories, event.data.code);
      if (!accessory) return state;
      const repriced = { ...accessory, unit_price_cents: event.data.unit_price_cents };
      return { ...state, accessories: { ...state.accessories, [event.data.code]: repriced } };
    }
    case 'AccessoryWithdrawn':
      return { ...state, accessories: without(state.accessories, event.data.code) };
    default:
      return assertNever(event);
  }
}
