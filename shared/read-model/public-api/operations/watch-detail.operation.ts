/** GET /api/public/catalogue/{reference}: one published watch, by reference in any case. */
import Type from 'typebox';
import { canonicalId } from '../../../events/common.ts';
import type { WatchDoc } from '../../documents/documents.ts';
import { LangOnlyQuery, NotFound, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { WatchDetail } from '../schemas/watch.schema.ts';
import type { PublicOperationSpec } from './operation.ts';
import { notFound, ok, type PublicOperation } from './public-operation.ts';
import { toWatchDetail } from './watch-presenter.ts';

const WatchDetailPath = Type.Object({
  reference: Type.String({ description: 'Watch reference, case-insensitive.' }),
});

const watchDetailSpec: PublicOperationSpec = {
  id: 'getWatch',
  method: 'GET',
  path: '/api/public/catalogue/:reference',
  summary: 'Full detail of one watch',
  summaryFr: 'Fiche complète d\'une montre',
  description: 'Specifications, images, description, price, features and SEO metadata of a published watch.',
  tags: ['Catalogue'],
  params: { path: WatchDetailPath, query: LangOnlyQuery, header: ReadModelHeaders },
  responses: {
    '200': { description: 'The watch', schema: WatchDetail },
    '404': { description: 'Unknown or withdrawn reference: `{"detail": "Watch not found"}`', schema: NotFound },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailableResponse,
  },
  cacheControl: 'public, max-age=60',
};

export const watchDetailOperation: PublicOperation = {
  spec: watchDetailSpec,
  reads: ['watches'],
  cacheable: true,
  async handle(request, { readStore }) {
    const { lang } = request.query as LangOnlyQuery;
    const reference = canonicalId(request.path['reference'] as string);
    const doc = await readStore.get<WatchDoc>('watches', `${lang}:${reference}`);
    return doc ? ok(toWatchDetail(doc, lang)) : notFound('Watch not found');
  },
};
