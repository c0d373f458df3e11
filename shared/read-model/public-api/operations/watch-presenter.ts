/** Read-model watch documents to the public shapes: cents become euros, the detail path is derived. */
import { centsToEuros } from '../../../money/cents.ts';
import type { Language } from '../../../events/common.ts';
import type { WatchDoc } from '../../documents/documents.ts';
import type { WatchDetail, WatchSummary } from '../schemas/watch.schema.ts';

const watchPath = (reference: string) => `/api/public/catalogue/${reference}`;
const configuratorPath = (collection: string) => `/api/public/configurator/options/${collection}`;

export function toWatchSummary(doc: WatchDoc): WatchSummary {
  return {
    reference: doc.reference,
    name: doc.name,
    collection: { code: doc.collection.code, name: doc.collection.name },
    short_description: doc.short_description,
    price_eur: centsToEuros(doc.price_cents),
    currency: 'EUR',
    stock_status: doc.stock_status,
    in_stock: doc.in_stock,
    image: doc.image,
    url: watchPath(doc.reference),
  };
}

export function toWatchDetail(doc: WatchDoc, lang: Language): WatchDetail {
  return {
    ...toWatchSummary(doc),
    description: doc.description,
    tax_included: true,
    specifications: doc.specifications,
    images: doc.images,
    features: doc.features,
    seo: doc.seo,
    manufacture: doc.manufacture,
    customizable: doc.customizable,
    configurator_path: doc.customizable ? configuratorPath(doc.collection.code) : null,
    lang,
  };
}
