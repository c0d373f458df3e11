/**
 * One watch as a person writes it for `watchcat watch create FILE` and `watchcat watch edit REF FILE`: the watch of a
 * catalogue file with its price in euros (money is typed in euros), and the texts and details a revision may change.
 */
import Type from 'typebox';
import { WatchPublished, WatchRevised } from '../../shared/events/index.ts';

const { price_cents: _priceCents, ...publishedFields } = WatchPublished.properties;

export const NewWatch = Type.Object(
  { ...publishedFields, price_eur: Type.Number({ exclusiveMinimum: 0, description: 'catalogue price in euros, at most two decimals' }) },
  { additionalProperties: false },
);
export type NewWatch = Type.Static<typeof NewWatch>;

export const WatchEdit = Type.Omit(WatchRevised, ['reference']);
export type WatchEdit = Type.Static<typeof WatchEdit>;
