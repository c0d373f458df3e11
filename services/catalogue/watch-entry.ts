/**
 * One watch as a person writes it for `watchcat watch create` and `watchcat watch edit REF FILE`: the watch of a
 * catalogue file with its price in euros (money is typed in euros), and the texts and details a revision may change.
 */
import Type from 'typebox';
import { MAX_PRICE_CENTS, WatchPublished, WatchRevised } from '../../shared/events/index.ts';
import { centsToEuros } from '../../shared/money/cents.ts';

/**
 * A catalogue price in euros, as the admin API and the watch file take it: a JSON number, at most two decimals
 * (`x-euros`, checked by document-issues.ts, since JSON Schema's `multipleOf` is inexact over binary fractions), up
 * to the highest price a watch may have.
 */
export const PriceEuros = Type.Number({
  exclusiveMinimum: 0, maximum: centsToEuros(MAX_PRICE_CENTS), description: 'euros, at most two decimals', 'x-euros': true,
});

const { price_cents: _priceCents, ...publishedFields } = WatchPublished.properties;

export const NewWatch = Type.Object({ ...publishedFields, price_eur: PriceEuros }, { additionalProperties: false });
export type NewWatch = Type.Static<typeof NewWatch>;

/** Closed as the revision is (typebox's Omit drops `additionalProperties`): a key it does not know is refused, not left out. */
export const WatchEdit = Type.Omit(WatchRevised, ['reference'], { additionalProperties: false });
export type WatchEdit = Type.Static<typeof WatchEdit>;
