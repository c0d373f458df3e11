/** GET /api/public/collections: every collection, by name, with its published watches' count and price range. */
import Type from 'typebox';
import { centsToEuros } from '../../../money/cents.ts';
import { Lang, type CollectionDoc } from '../../documents/documents.ts';
import { Collection } from '../schemas/collection.schema.ts';
import { LangOnlyQuery, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { collectionFigures, type CollectionFigures } from './collection-figures.ts';
import type { PublicOperationSpec } from './operation.ts';
import { ok, type PublicOperation } from './public-operation.ts';

const CollectionsAnswer = Type.Object({ collections: Type.Array(Collection), lang: Lang }, { title: 'CollectionList' });

function toCollection(doc: CollectionDoc, figures: CollectionFigures): Collection {
  const range = figures.price_range_cents;
  return {
    code: doc.code,
    name: doc.name,
    short_description: doc.short_description,
    description: doc.description,
    type: doc.type,
    diameter_mm: doc.diameter_mm,
    product_count: figures.product_count,
    price_range_eur: range ? { min: centsToEuros(range.min), max: centsToEuros(range.max) } : null,
  };
}

const collectionsSpec: PublicOperationSpec = {
  id: 'getCollections',
  method: 'GET',
  path: '/api/public/collections',
  summary: 'List the collections',
  summaryFr: 'Liste des collections',
  description: 'Every collection with its descriptions, type, diameter, count of published watches and their price range.',
  tags: ['Catalogue'],
  params: { query: LangOnlyQuery, header: ReadModelHeaders },
  responses: {
    '200': { description: 'The collections, sorted by name', schema: CollectionsAnswer },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailableResponse,
  },
  cacheControl: 'public, max-age=60',
};

export const collectionsOperation: PublicOperation = {
  spec: collectionsSpec,
  reads: ['collections'],
  cacheable: true,
  async handle(request, { readStore }) {
    const { lang } = request.query as LangOnlyQuery;
    const docs = await readStore.find<CollectionDoc>('collections', { lang }, { sort: { sort_name: 1, code: 1 } });
    const figures = await Promise.all(docs.map((doc) => collectionFigures(readStore, doc.code)));
    return ok({ collections: docs.map((doc, index) => toCollection(doc, figures[index]!)), lang });
  },
};
