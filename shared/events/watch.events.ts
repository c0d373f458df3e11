/** Events of the `watch-{REFERENCE}` streams. */
import Type from 'typebox';
import { CollectionCode, LocalizedList, LocalizedText, PriceCents, StockStatus, WatchReference } from './common.ts';

/**
 * Bounds of a language's specifications, so that an accepted watch can be served by the transparency log, whose
 * entry bundles hold at most 65,535 bytes per event (shared/read-model/transparency/log-entry.ts). Worst case in an entry (the
 * UTF-8 of `JSON.stringify`): a key of 40 ASCII characters is 43 bytes with its quotes and colon; a value of 500
 * characters at most 6 bytes each (a control character is written `\u00XX`) is 3,002 bytes with its quotes; a
 * comma: 3,046 bytes an entry, 20 x 3,046 + 2 = 60,922 bytes a language in the worst case, 20 x 546 = 10,920 for
 * plain text. Texts elsewhere (up to 5,000 characters in fourteen places) make the worst whole event larger than any
 * bundle whatever these bounds, so every event is also measured against the bundle when appended (event-records.ts):
 * these bounds refuse an oversized record at its field, with a clear error, before that. The schema names every
 * refusal: a 21st key (`maxProperties`), a key too long (`propertyNames`), a value too long (`maxLength`).
 * `maxProperties` and `propertyNames` bind writers only (codec.ts): an event an older version wrote stays readable.
 */
const SPECIFICATIONS_MAX_KEYS = 20;
const SPECIFICATION_KEY = '^[a-z_]{1,40}$';
const SpecificationValues = Type.Record(Type.String({ pattern: '^[a-z_]+$' }), Type.String({ minLength: 1, maxLength: 500 }), {
  maxProperties: SPECIFICATIONS_MAX_KEYS, propertyNames: { pattern: SPECIFICATION_KEY },
});

/** Specification values per language, keyed by a stable specification name (`case_diameter`, `movement`, ...). */
const Specifications = Type.Object({ en: SpecificationValues, fr: SpecificationValues }, { additionalProperties: false });

const WatchImage = Type.Object(
  {
    path: Type.String({ pattern: '^/[A-Za-z0-9/._-]+$' }),
    alt: LocalizedText,
    role: Type.Union([Type.Literal('main'), Type.Literal('gallery'), Type.Literal('detail'), Type.Literal('wrist')]),
  },
  { additionalProperties: false },
);

const Seo = Type.Object(
  { title: LocalizedText, description: LocalizedText, keywords: LocalizedList },
  { additionalProperties: false },
);

const Manufacture = Type.Object(
  { name: Type.String({ minLength: 1 }), origin: LocalizedText, workshop: Type.Optional(LocalizedText) },
  { additionalProperties: false },
);

const watchTexts = {
  name: LocalizedText,
  short_description: LocalizedText,
  description: LocalizedText,
  specifications: Specifications,
  images: Type.Array(WatchImage, { minItems: 1 }),
  features: LocalizedList,
  seo: Seo,
  manufacture: Manufacture,
  customizable: Type.Boolean(),
};

export const WatchPublished = Type.Object(
  {
    reference: WatchReference,
    collection: CollectionCode,
    ...watchTexts,
    price_cents: PriceCents,
    stock_status: StockStatus,
  },
  { additionalProperties: false },
);
export type WatchPublished = Type.Static<typeof WatchPublished>;

/** A revision of the descriptive fields; price and stock have events of their own. */
export const WatchRevised = Type.Object(
  {
    reference: WatchReference,
    name: Type.Optional(watchTexts.name),
    short_description: Type.Optional(watchTexts.short_description),
    description: Type.Optional(watchTexts.description),
    specifications: Type.Optional(watchTexts.specifications),
    images: Type.Optional(watchTexts.images),
    features: Type.Optional(watchTexts.features),
    seo: Type.Optional(watchTexts.seo),
    manufacture: Type.Optional(watchTexts.manufacture),
    customizable: Type.Optional(watchTexts.customizable),
  },
  { additionalProperties: false },
);
export type WatchRevised = Type.Static<typeof WatchRevised>;

const WatchPriceChanged = Type.Object(
  { reference: WatchReference, price_cents: PriceCents, previous_price_cents: PriceCents },
  { additionalProperties: false },
);

const WatchStockChanged = Type.Object(
  { reference: WatchReference, stock_status: StockStatus },
  { additionalProperties: false },
);

const WatchWithdrawn = Type.Object({ reference: WatchReference }, { additionalProperties: false });

export const watchEventSchemas = {
  WatchPublished, WatchRevised, WatchPriceChanged, WatchStockChanged, WatchWithdrawn,
} as const;
