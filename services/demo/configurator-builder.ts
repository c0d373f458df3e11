/** Small constructors for configurator options and accessories, in euros as a person writes them. */
import type { CategoryKey } from '../../shared/events/index.ts';
import { eurosToCents } from '../../shared/money/cents.ts';
import type { ConfiguratorEntry } from '../catalogue/catalogue-file.ts';

export type OptionEntry = { code: string; label: { en: string; fr: string }; price_cents: number; default?: boolean };
type AccessoryEntry = ConfiguratorEntry['accessories'][number];
type OfferedCategories = Partial<Record<CategoryKey, OptionEntry[]>>;

/** An option; the first option of each category passed to `firstAsDefault` becomes its default. */
export function option(code: string, en: string, fr: string, euros = 0): OptionEntry {
  return { code, label: { en, fr }, price_cents: eurosToCents(euros) };
}

/** Marks the first option of a category as its default, so each list reads "standard first, then upgrades". */
function firstAsDefault(options: OptionEntry[]): OptionEntry[] {
  return options.map((entry, index) => (index === 0 ? { ...entry, default: true } : entry));
}

export function accessory(code: string, en: string, fr: string, euros: number, max_quantity: number): AccessoryEntry {
  return { code, label: { en, fr }, unit_price_cents: eurosToCents(euros), max_quantity };
}

export function configurator(collection: string, categories: OfferedCategories, accessories: AccessoryEntry[]): ConfiguratorEntry {
  const offered = Object.fromEntries(Object.entries(categories).map(([key, options]) => [key, firstAsDefault(options ?? [])]));
  return { collection, categories: offered, accessories };
}
