/**
 * Pure edits of a configurator document in one language; categories always keep the eleven keys in CATEGORY_KEYS
 * order.
 */
import { CATEGORY_KEYS, type CategoryKey, type Language } from '../../events/index.ts';
import type { ConfiguratorCategoryDoc, ConfiguratorDoc } from '../documents/documents.ts';
import { CATEGORY_LABELS } from './category-labels.ts';

type Option = ConfiguratorCategoryDoc['options'][number];
type Accessory = ConfiguratorDoc['accessories'][number];

export function emptyConfigurator(lang: Language, code: string, collectionName: string, position: number): ConfiguratorDoc {
  return {
    _id: `${lang}:${code}`,
    lang,
    collection: { code, name: collectionName },
    categories: CATEGORY_KEYS.map((key) => ({ key, label: CATEGORY_LABELS[key][lang], options: [] })),
    accessories: [],
    position,
  };
}

/** Replaces the options of one category by `edit(options)`. */
export function editOptions(
  doc: ConfiguratorDoc, key: CategoryKey, edit: (options: Option[]) => Option[], position: number,
): ConfiguratorDoc {
  const categories = doc.categories.map((category) => (category.key === key ? { ...category, options: edit(category.options) } : category));
  return { ...doc, categories, position };
}

export function editAccessories(
  doc: ConfiguratorDoc, edit: (accessories: Accessory[]) => Accessory[], position: number,
): ConfiguratorDoc {
  return { ...doc, accessories: edit(doc.accessories), position };
}

/** Replaces the item with the same code, or appends it: offering again (a replay) does not duplicate it. */
export function upsertByCode<T extends { code: string }>(items: T[], item: T): T[] {
  return items.some((existing) => existing.code === item.code)
    ? items.map((existing) => (existing.code === item.code ? item : existing))
    : [...items, item];
}
