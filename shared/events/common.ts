/** Building blocks shared by every event schema: texts in both languages, money in cents, identifiers. */
import Type from 'typebox';
import type { TLiteral, TUnion } from 'typebox';

/**
 * A union of string literals whose static type is the union of the values: `Type.Union` of a mapped array is typed
 * `never` (typebox infers unions from tuples only), so the mapped array is typed back as the tuple it is.
 */
export function literalUnion<const T extends readonly string[]>(values: T): TUnion<LiteralTuple<T>> {
  return Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<LiteralTuple<T>>;
}
type LiteralTuple<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

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

/** The highest catalogue price, in cents: 100 million euros. */
export const MAX_PRICE_CENTS = 100_000_000_00;
/** A catalogue price: integer cents, strictly positive. */
export const PriceCents = Type.Integer({ minimum: 1, maximum: MAX_PRICE_CENTS });
/** An option or accessory surcharge: integer cents, zero allowed (defaults usually cost nothing). */
export const SurchargeCents = Type.Integer({ minimum: 0, maximum: 100_000_000_00 });

export const CollectionCode = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' });

/**
 * Watch references and serial numbers are upper-case identifiers, and people type them in any case: every way in
 * (the admin API, the CLI, the public operations) reads them through `canonicalId`, and accepts them as typed by the
 * `*_AS_TYPED` patterns, which are the events' patterns in any case.
 */
export const canonicalId = (typed: string): string => typed.trim().toUpperCase();
const REFERENCE_CHARS = { first: 'A-Z0-9', rest: 'A-Z0-9.-', length: '{0,39}' };
const SERIAL_CHARS = { chars: 'A-Z0-9-', length: '{4,32}' };
const anyCase = (chars: string): string => chars.replace('A-Z', 'A-Za-z');
export const WatchReference = Type.String({ pattern: `^[${REFERENCE_CHARS.first}][${REFERENCE_CHARS.rest}]${REFERENCE_CHARS.length}$` });
/** A serial number in its canonical form, as events hold it. */
export const SERIAL_PATTERN = `^[${SERIAL_CHARS.chars}]${SERIAL_CHARS.length}$`;
export const SerialNumber = Type.String({ pattern: SERIAL_PATTERN });
/** A reference as a request may spell it. */
export const REFERENCE_AS_TYPED = `^[${anyCase(REFERENCE_CHARS.first)}][${anyCase(REFERENCE_CHARS.rest)}]${REFERENCE_CHARS.length}$`;
/** A serial number as a request may spell it. */
export const SERIAL_AS_TYPED = `^[${anyCase(SERIAL_CHARS.chars)}]${SERIAL_CHARS.length}$`;
export const OptionCode = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$' });

export const STOCK_STATUSES = ['in_stock', 'low_stock', 'out_of_stock', 'made_to_order'] as const;
export const StockStatus = literalUnion(STOCK_STATUSES);
export type StockStatus = (typeof STOCK_STATUSES)[number];

/** The eleven configurator categories, in the order the public contract lists them. */
export const CATEGORY_KEYS = [
  'case', 'dial', 'lugs', 'crown', 'case_back', 'engraving', 'movement', 'rehaut', 'bracelet', 'tachymeter', 'pushers',
] as const;
export const CategoryKey = literalUnion(CATEGORY_KEYS);
export type CategoryKey = (typeof CATEGORY_KEYS)[number];
