/**
 * A watch document in one language, built from the published data and kept up to date by revisions. The derived
 * keys (main image, folded sort and search keys, search grams, canonical path) are computed here and nowhere else, so a
 * revision can never leave them stale.
 */
import type { Language, WatchPublished, WatchRevised } from '../../events/index.ts';
import { fold } from '../../text/fold.ts';
import { searchGrams } from '../../text/grams.ts';
import type { WatchDoc } from '../documents/documents.ts';

type WatchTexts = Omit<WatchRevised, 'reference'>;
type Images = NonNullable<WatchTexts['images']>;

const canonicalPath = (reference: string): string => `/api/public/catalogue/${reference}`;

/** The main image, or the first when none is marked main. */
function mainImage(images: Images, lang: Language): WatchDoc['image'] {
  const image = images.find((candidate) => candidate.role === 'main') ?? images[0];
  return image ? { url: image.path, alt: image.alt[lang] } : null;
}

/** The document fields one language takes from the texts present in `texts` (all of them on publication). */
function localizedFields(texts: WatchTexts, lang: Language, reference: string): Partial<WatchDoc> {
  const fields: Partial<WatchDoc> = {};
  if (texts.name) fields.name = texts.name[lang];
  if (texts.short_description) fields.short_description = texts.short_description[lang];
  if (texts.description) fields.description = texts.description[lang];
  if (texts.specifications) fields.specifications = { ...texts.specifications[lang] };
  if (texts.images) {
    fields.image = mainImage(texts.images, lang);
    fields.images = texts.images.map((image) => ({ url: image.path, alt: image.alt[lang], role: image.role }));
  }
  if (texts.features) fields.features = [...texts.features[lang]];
  if (texts.seo) {
    fields.seo = {
      title: texts.seo.title[lang],
      description: texts.seo.description[lang],
      keywords: [...texts.seo.keywords[lang]],
      canonical_path: canonicalPath(reference),
    };
  }
  if (texts.manufacture) {
    const { name, origin, workshop } = texts.manufacture;
    fields.manufacture = workshop ? { name, origin: origin[lang], workshop: workshop[lang] } : { name, origin: origin[lang] };
  }
  if (texts.customizable !== undefined) fields.customizable = texts.customizable;
  return fields;
}

/** Recomputes the folded keys from the fields they derive from. */
function withKeys(doc: WatchDoc): WatchDoc {
  doc.sort_name = fold(doc.name);
  doc.sort_collection = fold(doc.collection.name);
  doc.search_text = fold(`${doc.name} ${doc.reference} ${doc.description}`);
  doc.search_grams = searchGrams(doc.search_text);
  return doc;
}

export function publishedWatch(lang: Language, data: WatchPublished, collectionName: string, position: number): WatchDoc {
  const doc = {
    _id: `${lang}:${data.reference}`,
    lang,
    reference: data.reference,
    collection: { code: data.collection, name: collectionName },
    price_cents: data.price_cents,
    stock_status: data.stock_status,
    in_stock: isInStock(data.stock_status),
    ...localizedFields(data, lang, data.reference),
    sort_name: '',
    sort_collection: '',
    search_text: '',
    search_grams: [],
    position,
  } as WatchDoc;
  return withKeys(doc);
}

export function revisedWatch(doc: WatchDoc, revision: WatchRevised, position: number): WatchDoc {
  return withKeys({ ...doc, ...localizedFields(revision, doc.lang, doc.reference), position });
}

export function renamedCollection(doc: WatchDoc, collectionName: string, position: number): WatchDoc {
  return withKeys({ ...doc, collection: { code: doc.collection.code, name: collectionName }, position });
}

export function isInStock(status: WatchDoc['stock_status']): boolean {
  return status === 'in_stock' || status === 'low_stock';
}
