/** Events of the `watch-{REFERENCE}` streams. */
import Type from 'typebox';
import { CollectionCode, LocalizedList, LocalizedText, PriceCents, StockStatus, WatchReference } from './common.ts';

/** Specification values per language, keyed by a stable specification name (`case_diameter`, `movement`, ...). */
export const Specifications = Type.Object(
  {
    en: Type.Record(Type.String({ pattern: '^[a-z_]+$' }), Type.String({ minLength: 1, maxLength: 500 })),
    fr: Type.Record(Type.String({ pattern: '^[a-z_]+$' }), Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const WatchImage = Type.Object(
  {
    path: Type.String({ pattern: '^/[A-Za-z0-9/._-]+$' }),
    alt: LocalizedText,
    role: Type.Union([Type.Literal('main'), Type.Literal('gallery'), Type.Literal('detail'), Type.Literal('wrist')]),
  },
  { additionalProperties: false },
);

export const Seo = Type.Object(
  { title: LocalizedText, description: LocalizedText, keywords: LocalizedList },
  { additionalProperties: false },
);

export const Manufacture = Type.Object(
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

export const WatchPriceChanged = Type.Object(
  { reference: WatchReference, price_cents: PriceCents, previous_price_cents: PriceCents },
  { additionalProperties: false },
);
export type WatchPriceChanged = Type.Static<typeof WatchPriceChanged>;

export const WatchStockChanged = Type.Object(
  { reference: WatchReference, stock_status: StockStatus },
  { additionalProperties: false },
);
export type WatchStockChanged = Type.Static<typeof WatchStockChanged>;

export const WatchWithdrawn = Type.Object({ reference: WatchReference }, { additionalProperties: false });
export type WatchWithdrawn = Type.Static<typeof WatchWithdrawn>;

export const watchEventSchemas = {
  WatchPublished, WatchRevised, WatchPriceChanged, WatchStockChanged, WatchWithdrawn,
} as const;
