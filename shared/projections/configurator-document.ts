/**
 * Pure edits of a configurator document in one language. Models are derived from `member_watches` (every
 * published watch of the collection, so a watch revised to customizable can join without any other lookup);
 * categories always keep the eleven keys in CATEGORY_KEYS order.
 */
import { CATEGORY_KEYS, type CategoryKey, type Language } from '../../shared/events/index.ts';
import type { ConfiguratorCategoryDoc, ConfiguratorDoc } from '../../shared/read-models/documents.ts';
import { CATEGORY_LABELS } from './category-labels.ts';

export interface MemberWatch {
  reference: string;
  /** In the document's language. */
  name: string;
  price_cents: number;
  customizable: boolean;
}

/** A configurator document as this projection stores it: the public fields plus the watches models derive from. */
export interface ConfiguratorProjectionDoc extends ConfiguratorDoc {
  member_watches: MemberWatch[];
}

type Option = ConfiguratorCategoryDoc['options'][number];
type Accessory = ConfiguratorDoc['accessories'][number];

export function emptyConfigurator(lang: Language, code: string, collectionName: string, position: number): ConfiguratorProjectionDoc {
  return {
    _id: `${lang}:${code}`,
    lang,
    collection: { code, name: collectionName },
    models: [],
    categories: CATEGORY_KEYS.map((key) => ({ key, label: CATEGORY_LABELS[key][lang], options: [] })),
    accessories: [],
    member_watches: [],
    position,
  };
}

export function withMembers(doc: ConfiguratorProjectionDoc, members: MemberWatch[], position: number): ConfiguratorProjectionDoc {
  const models = members
    .filter((member) => member.customizable)
    .sort((a, b) => (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0))
    .map((member) => ({ model_ref: member.reference, name: member.name, base_price_cents: member.price_cents }));
  return { ...doc, member_watches: members, models, position };
}

/** Replaces the member with `reference` by `edit(member)`; `null` removes it. */
export function editMember(
  doc: ConfiguratorProjectionDoc, reference: string, edit: (member: MemberWatch) => MemberWatch | null, position: number,
): ConfiguratorProjectionDoc {
  const members = doc.member_watches.flatMap((member) => {
    if (member.reference !== reference) return [member];
    const edited = edit(member);
    return edited ? [edited] : [];
  });
  return withMembers(doc, members, position);
}

/** Replaces the options of one category by `edit(options)`. */
export function editOptions(
  doc: ConfiguratorProjectionDoc, key: CategoryKey, edit: (options: Option[]) => Option[], position: number,
): ConfiguratorProjectionDoc {
  const categories = doc.categories.map((category) => (category.key === key ? { ...category, options: edit(category.options) } : category));
  return { ...doc, categories, position };
}

export function editAccessories(
  doc: ConfiguratorProjectionDoc, edit: (accessories: Accessory[]) => Accessory[], position: number,
): ConfiguratorProjectionDoc {
  return { ...doc, accessories: edit(doc.accessories), position };
}

/** Replaces the item with the same code, or appends it: offering again (a replay) does not duplicate it. */
export function upsertByCode<T extends { code: string }>(items: T[], item: T): T[] {
  return items.some((existing) => existing.code === item.code)
    ? items.map((existing) => (existing.code === item.code ? item : existing))
    : [...items, item];
}
