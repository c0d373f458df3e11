/**
 * The `collections` read collection: one document per (language, code) with its published watches' count and
 * price range. Price and withdrawal events name the watch only, so each document also keeps its members' prices
 * (`member_prices`, by reference) and the count and range are recomputed from them: exact through any sequence
 * of publications, price changes and withdrawals.
 */
import { assertNever, LANGUAGES, type EventType } from '../../shared/events/index.ts';
import { fold } from '../../shared/text/fold.ts';
import type { CollectionDoc } from '../../shared/read-models/documents.ts';
import { langId, langIds, type DocChange, type PositionedEvent, type Projection, type Touches } from './projection.ts';

export interface MemberPrice {
  reference: string;
  price_cents: number;
}

/** A collection document as this projection stores it: the public fields plus the prices they derive from. */
export interface CollectionProjectionDoc extends CollectionDoc {
  member_prices: MemberPrice[];
}

const HANDLED: EventType[] = ['CollectionDefined', 'CollectionRevised', 'WatchPublished', 'WatchPriceChanged', 'WatchWithdrawn'];

/** Collection documents holding a watch. */
const holding = (reference: string) => ({ 'member_prices.reference': reference });

function touches(event: PositionedEvent): Touches {
  switch (event.type) {
    case 'CollectionDefined':
    case 'CollectionRevised':
      return { ids: langIds(event.data.code) };
    case 'WatchPublished':
      return { ids: langIds(event.data.collection) };
    case 'WatchPriceChanged':
    case 'WatchWithdrawn':
      return { ids: [], filter: holding(event.data.reference) };
    case 'WatchRevised':
    case 'WatchStockChanged':
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return { ids: [] };
    default:
      return assertNever(event);
  }
}

/** The document with `member_prices` replaced and the count and range recomputed from it. */
function withMembers(doc: CollectionProjectionDoc, members: MemberPrice[], position: number): CollectionProjectionDoc {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const { price_cents } of members) {
    min = Math.min(min, price_cents);
    max = Math.max(max, price_cents);
  }
  return {
    ...doc,
    member_prices: members,
    product_count: members.length,
    price_range_cents: members.length > 0 ? { min, max } : null,
    position,
  };
}

function membersOf(docs: ReadonlyMap<string, CollectionProjectionDoc>, reference: string): CollectionProjectionDoc[] {
  return [...docs.values()].filter((doc) => doc.member_prices.some((member) => member.reference === reference));
}

function apply(event: PositionedEvent, docs: ReadonlyMap<string, CollectionProjectionDoc>): DocChange<CollectionProjectionDoc>[] {
  const { position } = event;
  switch (event.type) {
    case 'CollectionDefined': {
      const data = event.data;
      return LANGUAGES.map((lang) => ({
        put: {
          _id: langId(lang, data.code), lang, code: data.code, name: data.name[lang],
          short_description: data.short_description[lang], description: data.description[lang], type: data.type,
          diameter_mm: data.diameter_mm, product_count: 0, price_range_cents: null, sort_name: fold(data.name[lang]),
          member_prices: [], position,
        },
      }));
    }
    case 'CollectionRevised': {
      const { name, short_description, description, type, diameter_mm } = event.data;
      return langIds(event.data.code).flatMap((id) => {
        const doc = docs.get(id);
        if (!doc) return [];
        const next: CollectionProjectionDoc = { ...doc, position };
        if (name) Object.assign(next, { name: name[doc.lang], sort_name: fold(name[doc.lang]) });
        if (short_description) next.short_description = short_description[doc.lang];
        if (description) next.description = description[doc.lang];
        if (type) next.type = type;
        if (diameter_mm !== undefined) next.diameter_mm = diameter_mm;
        return [{ put: next }];
      });
    }
    case 'WatchPublished': {
      const { reference, price_cents } = event.data;
      return langIds(event.data.collection).flatMap((id) => {
        const doc = docs.get(id);
        if (!doc) return [];
        const others = doc.member_prices.filter((member) => member.reference !== reference);
        return [{ put: withMembers(doc, [...others, { reference, price_cents }], position) }];
      });
    }
    case 'WatchPriceChanged': {
      const { reference, price_cents } = event.data;
      return membersOf(docs, reference).map((doc) => ({
        put: withMembers(doc, doc.member_prices.map((m) => (m.reference === reference ? { reference, price_cents } : m)), position),
      }));
    }
    case 'WatchWithdrawn': {
      const { reference } = event.data;
      return membersOf(docs, reference).map((doc) => ({
        put: withMembers(doc, doc.member_prices.filter((m) => m.reference !== reference), position),
      }));
    }
    case 'WatchRevised':
    case 'WatchStockChanged':
    case 'ConfiguratorOptionOffered':
    case 'ConfiguratorOptionRepriced':
    case 'ConfiguratorOptionWithdrawn':
    case 'ConfiguratorDefaultChosen':
    case 'AccessoryOffered':
    case 'AccessoryRepriced':
    case 'AccessoryWithdrawn':
    case 'SerialRegistered':
    case 'SerialReportedStolen':
    case 'SerialRecovered':
      return [];
    default:
      return assertNever(event);
  }
}

export const collectionsProjection: Projection<CollectionProjectionDoc> = {
  name: 'collections',
  collection: 'collections',
  handles: new Set(HANDLED),
  touches,
  apply,
};
