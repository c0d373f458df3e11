/** A catalogue entry as the public API shows it: the summary in lists, the detail on its own. */
import Type from 'typebox';
import { StockStatus } from '../../../events/common.ts';
import { Lang } from '../../documents/documents.ts';
import { AnyKey, Euros } from './common.schema.ts';

const ImageRef = Type.Object({ url: Type.String(), alt: Type.String() });

export const WatchSummary = Type.Object({
  reference: Type.String(),
  name: Type.String(),
  collection: Type.Object({ code: Type.String(), name: Type.String() }),
  short_description: Type.String(),
  price_eur: Euros,
  currency: Type.Literal('EUR'),
  stock_status: StockStatus,
  in_stock: Type.Boolean(),
  image: Type.Union([ImageRef, Type.Null()]),
  url: Type.String({ description: 'Path of the watch detail operation.' }),
}, { title: 'WatchSummary' });
export type WatchSummary = Type.Static<typeof WatchSummary>;

export const WatchDetail = Type.Object({
  ...WatchSummary.properties,
  description: Type.String(),
  tax_included: Type.Literal(true),
  specifications: Type.Record(AnyKey, Type.String()),
  images: Type.Array(Type.Object({ url: Type.String(), alt: Type.String(), role: Type.String() })),
  features: Type.Array(Type.String()),
  seo: Type.Object({
    title: Type.String(), description: Type.String(), keywords: Type.Array(Type.String()), canonical_path: Type.String(),
  }),
  manufacture: Type.Object({ name: Type.String(), origin: Type.String(), workshop: Type.Optional(Type.String()) }),
  customizable: Type.Boolean(),
  configurator_path: Type.Union([Type.String(), Type.Null()]),
  lang: Lang,
}, { title: 'WatchDetail' });
export type WatchDetail = Type.Static<typeof WatchDetail>;
