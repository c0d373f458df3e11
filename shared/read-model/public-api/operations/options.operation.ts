/** GET /api/public/configurator/options/{collection}: the customization options of one collection. */
import Type from 'typebox';
import { centsToEuros } from '../../../money/cents.ts';
import type { ConfiguratorDoc } from '../../documents/documents.ts';
import { LangOnlyQuery, NotFound, rateLimitedResponse, unavailableResponse, validationResponse, ReadModelHeaders } from '../schemas/common.schema.ts';
import { ConfiguratorOptions } from '../schemas/configurator.schema.ts';
import { collectionModels, type CollectionModel } from './collection-models.ts';
import type { PublicOperationSpec } from './operation.ts';
import { notFound, ok, type PublicOperation } from './public-operation.ts';

/** A business fact of custom orders, the same for every collection. */
export const CUSTOM_ORDER_DELIVERY = { min_weeks: 8, max_weeks: 12 } as const;

const OptionsPath = Type.Object({ collection: Type.String({ description: 'Collection code, case-insensitive.' }) });

function toConfiguratorOptions(doc: ConfiguratorDoc, models: CollectionModel[], lang: 'en' | 'fr'): ConfiguratorOptions {
  return {
    collection: { code: doc.collection.code, name: doc.collection.name },
    currency: 'EUR',
    models: models.map((m) => ({ model_ref: m.model_ref, name: m.name, base_price_eur: centsToEuros(m.base_price_cents) })),
    categories: doc.categories.map((c) => ({
      key: c.key,
      label: c.label,
      options: c.options.map((o) => ({ code: o.code, label: o.label, price_eur: centsToEuros(o.price_cents), default: o.default })),
    })),
    accessories: doc.accessories.map((a) => ({
      code: a.code, label: a.label, unit_price_eur: centsToEuros(a.unit_price_cents), max_quantity: a.max_quantity,
    })),
    delivery: { ...CUSTOM_ORDER_DELIVERY },
    lang,
  };
}

const optionsSpec: PublicOperationSpec = {
  id: 'getConfiguratorOptions',
  method: 'GET',
  path: '/api/public/configurator/options/:collection',
  summary: 'Customization options of a collection',
  summaryFr: 'Options de personnalisation d\'une collection',
  description: 'Models, the eleven option categories (empty when not offered) and accessories of a collection, with prices in EUR.',
  tags: ['Configurator'],
  params: { path: OptionsPath, query: LangOnlyQuery, header: ReadModelHeaders },
  responses: {
    '200': { description: 'The options', schema: ConfiguratorOptions },
    '404': { description: 'Unknown collection: `{"detail": "Collection not found"}`', schema: NotFound },
    '422': validationResponse,
    '429': rateLimitedResponse,
    '503': unavailableResponse,
  },
  cacheControl: 'public, max-age=60',
};

export const optionsOperation: PublicOperation = {
  spec: optionsSpec,
  reads: ['configurators', 'watches'],
  cacheable: true,
  async handle(request, { readStore }) {
    const { lang } = request.query as LangOnlyQuery;
    const code = (request.path['collection'] as string).toLowerCase();
    const doc = await readStore.get<ConfiguratorDoc>('configurators', `${lang}:${code}`);
    if (!doc) return notFound('Collection not found');
    return ok(toConfiguratorOptions(doc, await collectionModels(readStore, lang, doc.collection.code), lang));
  },
};
