/** POST /api/public/configurator/price: prices a custom configuration. Reads the configurator and the model's watch, stores nothing. */
import type { ConfiguratorDoc } from '../../documents/documents.ts';
import { LangOnlyQuery, PayloadTooLarge, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { PriceRequest, PriceResult } from '../schemas/configurator.schema.ts';
import { RequestValidationError } from '../validation/validation-issue.ts';
import { collectionModel } from './collection-models.ts';
import type { PublicOperationSpec } from './operation.ts';
import { ok, type PublicOperation } from './public-operation.ts';
import { quotePrice, unknownCollection } from './price-quote.ts';

export const priceSpec: PublicOperationSpec = {
  id: 'calculatePrice',
  method: 'POST',
  path: '/api/public/configurator/price',
  summary: 'Price a custom configuration',
  summaryFr: 'Prix d\'une configuration personnalisée',
  description: 'Base price + options (chosen or default, for every offered category) + accessories = total, in EUR, computed in integer cents. Stores nothing.',
  tags: ['Configurator'],
  params: { query: LangOnlyQuery, header: ReadModelHeaders },
  body: PriceRequest,
  responses: {
    '200': { description: 'The price', schema: PriceResult },
    '413': { description: 'Body above 16 KiB: `{"detail": "Request body too large"}`', schema: PayloadTooLarge },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailableResponse,
  },
};

export const priceOperation: PublicOperation = {
  spec: priceSpec,
  reads: ['configurators', 'watches'],
  cacheable: false,
  async handle(request, { readStore }) {
    const { lang } = request.query as LangOnlyQuery;
    const body = request.body as PriceRequest;
    const doc = await readStore.get<ConfiguratorDoc>('configurators', `${lang}:${body.collection.toLowerCase()}`);
    if (!doc) throw new RequestValidationError(unknownCollection(body));
    const model = await collectionModel(readStore, lang, doc.collection.code, body.model_ref);
    const quote = quotePrice(doc, model, body, lang);
    if (!quote.ok) throw new RequestValidationError(quote.issues);
    return ok(quote.result);
  },
};
