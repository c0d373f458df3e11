/**
 * Events of the `configurator-{collection}` streams: the option table and accessories of one collection.
 * Models are not listed here: a configurator model is a customizable watch of the collection, priced by its
 * catalogue price (one price, one source).
 */
import Type from 'typebox';
import { CategoryKey, CollectionCode, LocalizedText, OptionCode, SurchargeCents } from './common.ts';

export const ConfiguratorOptionOffered = Type.Object(
  { collection: CollectionCode, category: CategoryKey, code: OptionCode, label: LocalizedText, price_cents: SurchargeCents },
  { additionalProperties: false },
);
export type ConfiguratorOptionOffered = Type.Static<typeof ConfiguratorOptionOffered>;

const ConfiguratorOptionRepriced = Type.Object(
  { collection: CollectionCode, category: CategoryKey, code: OptionCode, price_cents: SurchargeCents },
  { additionalProperties: false },
);

const ConfiguratorOptionWithdrawn = Type.Object(
  { collection: CollectionCode, category: CategoryKey, code: OptionCode },
  { additionalProperties: false },
);

/** The category's default option; every offered category has exactly one. */
const ConfiguratorDefaultChosen = Type.Object(
  { collection: CollectionCode, category: CategoryKey, code: OptionCode },
  { additionalProperties: false },
);

export const AccessoryOffered = Type.Object(
  {
    collection: CollectionCode,
    code: OptionCode,
    label: LocalizedText,
    unit_price_cents: SurchargeCents,
    max_quantity: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  { additionalProperties: false },
);
export type AccessoryOffered = Type.Static<typeof AccessoryOffered>;

const AccessoryRepriced = Type.Object(
  { collection: CollectionCode, code: OptionCode, unit_price_cents: SurchargeCents },
  { additionalProperties: false },
);

const AccessoryWithdrawn = Type.Object(
  { collection: CollectionCode, code: OptionCode },
  { additionalProperties: false },
);

export const configuratorEventSchemas = {
  ConfiguratorOptionOffered, ConfiguratorOptionRepriced, ConfiguratorOptionWithdrawn, ConfiguratorDefaultChosen,
  AccessoryOffered, AccessoryRepriced, AccessoryWithdrawn,
} as const;
