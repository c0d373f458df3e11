/** A collection as listed by the public API. */
import Type from 'typebox';
import { Euros } from './common.schema.ts';

export const Collection = Type.Object({
  code: Type.String(),
  name: Type.String(),
  short_description: Type.String(),
  description: Type.String(),
  type: Type.String(),
  diameter_mm: Type.Number(),
  product_count: Type.Integer({ minimum: 0 }),
  price_range_eur: Type.Union([Type.Object({ min: Euros, max: Euros }), Type.Null()]),
}, { title: 'Collection' });
export type Collection = Type.Static<typeof Collection>;
