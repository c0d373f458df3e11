/**
 * The catalogue file: the format of the demo catalogue and of `watchcat import FILE`. Each entry is the data of
 * the event that introduces it, so importing is a matter of issuing the commands that reach this state.
 */
import Type from 'typebox';
import { ManufactureYear } from '../../shared/events/serial.events.ts';
import {
  AccessoryOffered, CATEGORY_KEYS, CollectionDefined, ConfiguratorOptionOffered, SerialNumber, WatchPublished,
  WatchReference,
} from '../../shared/events/index.ts';

const OptionEntry = Type.Object(
  {
    code: ConfiguratorOptionOffered.properties.code,
    label: ConfiguratorOptionOffered.properties.label,
    price_cents: ConfiguratorOptionOffered.properties.price_cents,
    /** Exactly one option per offered category is the default. */
    default: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const ConfiguratorEntry = Type.Object(
  {
    collection: AccessoryOffered.properties.collection,
    /**
     * Offered categories only; a category left out is not offered by the collection. Closed: a key that is not a
     * category (`strap`, `case-back`) would otherwise be left out of the import without a word.
     */
    categories: Type.Partial(
      Type.Object(Object.fromEntries(CATEGORY_KEYS.map((k) => [k, Type.Array(OptionEntry, { minItems: 1 })]))),
      { additionalProperties: false },
    ),
    // Closed as the event is: typebox's Omit drops its `additionalProperties`.
    accessories: Type.Array(Type.Omit(AccessoryOffered, ['collection'], { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type ConfiguratorEntry = Type.Static<typeof ConfiguratorEntry>;

export const SerialEntry = Type.Object(
  {
    serial: SerialNumber,
    reference: WatchReference,
    manufacture_year: ManufactureYear,
    stolen: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SerialEntry = Type.Static<typeof SerialEntry>;

export const CatalogueFile = Type.Object(
  {
    collections: Type.Array(CollectionDefined),
    watches: Type.Array(WatchPublished),
    configurators: Type.Array(ConfiguratorEntry),
    serials: Type.Array(SerialEntry),
  },
  { additionalProperties: false },
);
export type CatalogueFile = Type.Static<typeof CatalogueFile>;

/** `CatalogueFile` as a standalone JSON Schema document (published as catalogue-file.schema.json beside this file). */
export function catalogueFileJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'watchcat catalogue file',
    description: 'The input of `watchcat import FILE` and `POST /admin/import`. Each entry is the data of the event that introduces it; prices are in cents.',
    ...(JSON.parse(JSON.stringify(CatalogueFile)) as Record<string, unknown>),
  };
}
