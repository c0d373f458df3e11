/** Building blocks shared by every event schema: texts in both languages, money in cents, identifiers. */
import Type from 'typebox';

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

const NonEmpty = Type.String({ minLength: 1, maxLength: 5000 });

/** A text given in every supported language; an event never carries one language alone. */
export const LocalizedText = Type.Object({ en: NonEmpty, fr: NonEmpty }, { additionalProperties: false });
export type LocalizedText = Type.Static<typeof LocalizedText>;

/** A list of texts per language (features, SEO keywords). */
export const LocalizedList = Type.Object(
  { en: Type.Array(NonEmpty), fr: Type.Array(NonEmpty) },
  { additionalProperties: false },
);
export type LocalizedList = Type.Static<typeof LocalizedList>;

/** A catalogue price: integer cents, strictly positive. */
export const PriceCents = Type.Integer({ minimum: 1, maximum: 100_000_000_00 });
/** An option or accessory surcharge: integer cents, zero allowed (defaults usually cost nothing). */
export const SurchargeCents = Type.Integer({ minimum: 0, maximum: 100_000_000_00 });

export const CollectionCode = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' });
export const WatchReference = Type.String({ pattern: '^[A-Z0-9][A-Z0-9.-]{0,39}$' });
export const SerialNumber = Type.String({ pattern: '^[A-Z0-9-]{4,32}$' });
export const OptionCode = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' });

export const STOCK_STATUSES = ['in_stock', 'low_stock', 'out_of_stock', 'made_to_order'] as const;
export const StockStatus = Type.Union(STOCK_STATUSES.map((s) => Type.Literal(s)));
export type StockStatus = (typeof STOCK_STATUSES)[number];

/** The eleven configurator categories, in the order the public contract lists them. */
export const CATEGORY_KEYS = [
  'case', 'dial', 'lugs', 'crown', 'case_back', 'engraving', 'movement', 'rehaut', 'bracelet', 'tachymeter', 'pushers',
] as const;
export const CategoryKey = Type.Union(CATEGORY_KEYS.map((k) => Type.Literal(k)));
export type CategoryKey = (typeof CATEGORY_KEYS)[number];
