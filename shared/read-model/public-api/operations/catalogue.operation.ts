/** GET /api/public/catalogue: filter, sort and page the published watches. */
import Type from 'typebox';
import { escapeRegExp, fold } from '../../../text/fold.ts';
import { gramCondition } from '../../../text/grams.ts';
import type { Filter, Sort } from '../../../ports/read-store.ts';
import { Lang, type WatchDoc } from '../../documents/documents.ts';
import { LangParam, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { WatchSummary } from '../schemas/watch.schema.ts';
import type { PublicOperationSpec } from './operation.ts';
import { ok, type PublicOperation } from './public-operation.ts';
import { toWatchSummary } from './watch-presenter.ts';

export const CatalogueQuery = Type.Object({
  lang: LangParam,
  collection: Type.String({ default: '', description: 'Collection code, case-insensitive; empty for every collection.' }),
  search: Type.String({
    default: '', maxLength: 100,
    description: 'Case- and accent-insensitive literal substring of name, reference or description.',
  }),
  min_price: Type.Number({ default: 0, minimum: 0, description: 'Minimum price in EUR, tax included. Alias: `price_min`.', 'x-aliases': ['price_min'] }),
  max_price: Type.Number({
    default: 0, minimum: 0, description: 'Maximum price in EUR, tax included; 0 means no limit. Alias: `price_max`.',
    'x-aliases': ['price_max'],
  }),
  in_stock: Type.Boolean({ default: false, description: 'Only watches in stock or in low stock.' }),
  sort: Type.Union([Type.Literal('name'), Type.Literal('price_asc'), Type.Literal('price_desc'), Type.Literal('collection')], {
    default: 'name', description: 'Order; ties are always broken by reference.',
  }),
  limit: Type.Integer({ default: 50, minimum: 1, maximum: 100 }),
  // Bounded where a number is still exact (as X-Min-Position): past it the skip sent to the store and the offset
  // echoed are no longer the number asked.
  offset: Type.Integer({ default: 0, minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
});
export type CatalogueQuery = Type.Static<typeof CatalogueQuery>;

const CatalogueAnswer = Type.Object({
  watches: Type.Array(WatchSummary),
  total: Type.Integer({ description: 'Every match, before paging.' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  lang: Lang,
}, { title: 'CataloguePage' });

/** Reference comes last in every sort so that pages never repeat or skip a watch. */
const CATALOGUE_SORTS: Record<CatalogueQuery['sort'], Sort> = {
  name: { sort_name: 1, reference: 1 },
  price_asc: { price_cents: 1, reference: 1 },
  price_desc: { price_cents: -1, reference: 1 },
  collection: { sort_collection: 1, sort_name: 1, reference: 1 },
};

/** The MongoDB filter of a validated query. User text only ever reaches it escaped, as a literal. */
export function catalogueFilter(query: CatalogueQuery): Filter {
  const filter: Filter = { lang: query.lang };
  if (query.collection !== '') filter['collection.code'] = query.collection.toLowerCase();
  const term = fold(query.search);
  if (term !== '') {
    // The gram index narrows the candidates to a few; the literal substring check decides on those.
    filter['search_grams'] = gramCondition(term);
    filter['search_text'] = { $regex: escapeRegExp(term) };
  }
  const price: Record<string, number> = {};
  // Prices are whole cents: round the bounds inward so a bound in fractions of a cent keeps its meaning.
  if (query.min_price > 0) price['$gte'] = Math.ceil(query.min_price * 100 - 1e-6);
  if (query.max_price > 0) price['$lte'] = Math.floor(query.max_price * 100 + 1e-6);
  if (Object.keys(price).length > 0) filter['price_cents'] = price;
  if (query.in_stock) filter['in_stock'] = true;
  return filter;
}

const catalogueSpec: PublicOperationSpec = {
  id: 'getCatalogue',
  method: 'GET',
  path: '/api/public/catalogue',
  summary: 'Browse the watch catalogue',
  summaryFr: 'Parcourir le catalogue des montres',
  description: 'Published watches filtered by collection, text, price and stock, sorted and paged. `total` counts every match before paging.',
  tags: ['Catalogue'],
  params: { query: CatalogueQuery, header: ReadModelHeaders },
  responses: {
    '200': { description: 'A page of watches', schema: CatalogueAnswer },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailableResponse,
  },
  cacheControl: 'public, max-age=60',
};

export const catalogueOperation: PublicOperation = {
  spec: catalogueSpec,
  reads: ['watches'],
  cacheable: true,
  async handle(request, { readStore }) {
    const query = request.query as CatalogueQuery;
    const filter = catalogueFilter(query);
    const [docs, total] = await Promise.all([
      readStore.find<WatchDoc>('watches', filter, { sort: CATALOGUE_SORTS[query.sort], skip: query.offset, limit: query.limit }),
      readStore.count('watches', filter),
    ]);
    return ok({ watches: docs.map(toWatchSummary), total, limit: query.limit, offset: query.offset, lang: query.lang });
  },
};
