/** The configurator: the options of a collection, the price request and the price result. */
import Type from 'typebox';
import { CategoryKey } from '../../../events/common.ts';
import { Lang } from '../../documents/documents.ts';
import { AnyKey, Euros } from './common.schema.ts';

const CollectionRef = Type.Object({ code: Type.String(), name: Type.String() });

const Delivery = Type.Object({
  min_weeks: Type.Integer(), max_weeks: Type.Integer(),
}, { title: 'Delivery', description: 'Delivery time of a custom order, from order confirmation.' });

const ConfiguratorCategory = Type.Object({
  key: CategoryKey,
  label: Type.String(),
  options: Type.Array(Type.Object({
    code: Type.String(), label: Type.String(), price_eur: Euros, default: Type.Boolean(),
  })),
}, { title: 'ConfiguratorCategory' });

export const ConfiguratorOptions = Type.Object({
  collection: CollectionRef,
  currency: Type.Literal('EUR'),
  models: Type.Array(Type.Object({ model_ref: Type.String(), name: Type.String(), base_price_eur: Euros })),
  categories: Type.Array(ConfiguratorCategory, { description: 'Always the eleven categories, in contract order.' }),
  accessories: Type.Array(Type.Object({
    code: Type.String(), label: Type.String(), unit_price_eur: Euros, max_quantity: Type.Integer(),
  })),
  delivery: Delivery,
  lang: Lang,
}, { title: 'ConfiguratorOptions' });
export type ConfiguratorOptions = Type.Static<typeof ConfiguratorOptions>;

export const PriceRequest = Type.Object({
  collection: Type.String({ description: 'Collection code.' }),
  model_ref: Type.String({ description: 'Model reference; `model_reference` is accepted as an alias.', 'x-aliases': ['model_reference'] }),
  options: Type.Optional(Type.Union([Type.Record(AnyKey, Type.String()), Type.Null()], {
    description: 'Category key -> option code; `case-back` and `caseback` are accepted for `case_back`.',
  })),
  accessories: Type.Optional(Type.Union([Type.Record(AnyKey, Type.Integer()), Type.Null()], {
    description: 'Accessory code -> quantity (0 to the accessory\'s max_quantity).',
  })),
}, { title: 'PriceRequest' });
export type PriceRequest = Type.Static<typeof PriceRequest>;

export const PriceResult = Type.Object({
  collection: Type.String(),
  model_ref: Type.String(),
  currency: Type.Literal('EUR'),
  base_price_eur: Euros,
  options: Type.Array(Type.Object({ category: CategoryKey, code: Type.String(), label: Type.String(), price_eur: Euros })),
  options_total_eur: Euros,
  accessories: Type.Array(Type.Object({
    code: Type.String(), label: Type.String(), quantity: Type.Integer(), unit_price_eur: Euros, total_eur: Euros,
  })),
  accessories_total_eur: Euros,
  total_eur: Euros,
  delivery: Delivery,
  lang: Lang,
}, { title: 'PriceResult' });
export type PriceResult = Type.Static<typeof PriceResult>;
