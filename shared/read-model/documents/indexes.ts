/**
 * The secondary indexes of the read collections, engine-neutral: the MongoDB adapter creates them, the in-memory
 * store indexes the same fields, and a test checks every query the read API and the projections make against them
 * (test/contract/read-indexes.test.ts). Keys follow ESR order (equality fields, then the sort, then a range), so an
 * index bounds a query's scan to what its equalities select and walks the page in order. `_id` is always indexed.
 */
import type { ReadCollection } from './documents.ts';

export interface ReadIndex {
  /** Fields in order with their direction; an index walked backwards serves the sort with every direction reversed. */
  key: Readonly<Record<string, 1 | -1>>;
  /** The field holds an array and every element is a key (the search grams). */
  multikey?: string;
}

export const READ_INDEXES: Readonly<Record<ReadCollection, readonly ReadIndex[]>> = {
  watches: [
    // The catalogue's four orders, every page of a language.
    { key: { lang: 1, sort_name: 1, reference: 1 } },
    { key: { lang: 1, price_cents: 1, reference: 1 } },
    // Dearest first, ties still by reference ascending: not the reverse of the one above.
    { key: { lang: 1, price_cents: -1, reference: 1 } },
    { key: { lang: 1, sort_collection: 1, sort_name: 1, reference: 1 } },
    // A collection's watches: the catalogue's `collection` filter, and a collection rename in the projection.
    { key: { 'collection.code': 1, lang: 1, sort_name: 1, reference: 1 } },
    // A collection's models, its customizable watches by reference (the configurator's options and price).
    { key: { 'collection.code': 1, lang: 1, customizable: 1, reference: 1 } },
    // Search: the watches holding every gram of the term (shared/text/grams.ts).
    { key: { lang: 1, search_grams: 1 }, multikey: 'search_grams' },
  ],
  collections: [
    { key: { lang: 1, sort_name: 1, code: 1 } },
    // A collection's members by price: its count and price range (collections.projection.ts).
    { key: { member_of: 1, price_cents: 1 } },
  ],
  // Read by `_id` only.
  configurators: [],
  // A watch rename reaches its serials.
  serials: [{ key: { reference: 1 } }],
  // The transparency log's tiles, by `_id`; an event's leaf by the level-0 tile whose first position is the
  // greatest at or before the event's.
  tlog: [{ key: { first_position: 1 } }],
  checkpoints: [],
};

/**
 * The fields the in-memory store looks documents up by (the equality parts of the indexes above): a document is
 * filed under its value there, or under each element for a multikey field.
 */
export const LOOKUP_FIELDS: Readonly<Record<ReadCollection, readonly string[]>> = {
  watches: ['lang', 'collection.code', 'search_grams'],
  collections: ['lang', 'member_of'],
  configurators: [],
  serials: ['reference'],
  tlog: [],
  checkpoints: [],
};

/** The multikey fields of a collection's indexes. */
export function multikeyFields(collection: ReadCollection): Set<string> {
  return new Set(READ_INDEXES[collection].flatMap((index) => (index.multikey ? [index.multikey] : [])));
}
