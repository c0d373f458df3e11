/**
 * A collection's count of published watches and their price range, read from the collections projection's member
 * records (shared/read-model/projections/collections.projection.ts) through the `{member_of, price_cents}` index: a count and
 * the two ends of the index range, however many watches the collection holds.
 */
import type { ReadView } from '../../../ports/read-store.ts';
import type { CollectionMemberDoc } from '../../documents/documents.ts';

export interface CollectionFigures {
  product_count: number;
  price_range_cents: { min: number; max: number } | null;
}

export async function collectionFigures(readStore: ReadView, code: string): Promise<CollectionFigures> {
  const members = { member_of: code };
  const [count, [cheapest], [dearest]] = await Promise.all([
    readStore.count('collections', members),
    readStore.find<CollectionMemberDoc>('collections', members, { sort: { price_cents: 1 }, limit: 1 }),
    readStore.find<CollectionMemberDoc>('collections', members, { sort: { price_cents: -1 }, limit: 1 }),
  ]);
  const range = cheapest?.price_cents !== undefined && dearest?.price_cents !== undefined
    ? { min: cheapest.price_cents, max: dearest.price_cents }
    : null;
  return { product_count: count, price_range_cents: range };
}
