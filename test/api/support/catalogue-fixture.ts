/**
 * A small catalogue of read-model documents in both languages, shaped as the projections shape them (folded sort and
 * search keys), plus a writer that puts it in a read store. The keys are folded here, not with the projections' own
 * `fold()`, so a fault in it shows as a wrong answer instead of being copied into what the tests expect.
 */
import { CATEGORY_KEYS, type CategoryKey, type Language, type StockStatus } from '../../../shared/events/common.ts';
import { FIRST_GENERATION, type ReadStore, type StoredDoc } from '../../../shared/ports/read-store.ts';
import type {
  CollectionDoc, CollectionMemberDoc, ConfiguratorDoc, ReadCollection, SerialDoc, WatchDoc,
} from '../../../shared/read-model/documents/documents.ts';
import { newCheckpoint, type CheckpointState } from '../../../shared/read-model/projections/control-docs.ts';

type Texts = { en: string; fr: string };

export interface WatchSeed {
  reference: string;
  collection: string;
  name: Texts;
  description?: Texts;
  price_cents: number;
  stock_status?: StockStatus;
  customizable?: boolean;
}

export const COLLECTIONS: Record<string, { name: Texts; type: string; diameter_mm: number }> = {
  regate: { name: { en: 'Régate', fr: 'Régate' }, type: 'sport', diameter_mm: 41 },
  heritage: { name: { en: 'Heritage 1891', fr: 'Héritage 1891' }, type: 'heritage', diameter_mm: 38 },
  abysse: { name: { en: 'Abysse', fr: 'Abysse' }, type: 'diver', diameter_mm: 43 },
};

export const WATCHES: WatchSeed[] = [
  { reference: 'RG-100', collection: 'regate', name: { en: 'Regate Automatic', fr: 'Régate Automatique' }, price_cents: 1250000, customizable: true },
  { reference: 'RG-200', collection: 'regate', name: { en: 'Regate Chronograph', fr: 'Régate Chronographe' }, price_cents: 1890050, stock_status: 'low_stock', customizable: true },
  { reference: 'RG-300', collection: 'regate', name: { en: 'Regate Édition Bleue', fr: 'Régate Édition Bleue' }, price_cents: 1250000, stock_status: 'out_of_stock' },
  { reference: 'HE-100', collection: 'heritage', name: { en: 'Heritage Small Seconds', fr: 'Héritage Petite Seconde' }, price_cents: 980000, stock_status: 'made_to_order' },
  { reference: 'HE-200', collection: 'heritage', name: { en: 'anniversary (a+)+$ .*', fr: 'anniversaire (a+)+$ .*' }, price_cents: 2450000 },
];

/** The accented letters the fixture's texts hold, as the contract folds them: `Édition` is found by `edition`. */
const UNACCENTED: Record<string, string> = { é: 'e', É: 'E', è: 'e', ê: 'e', à: 'a', ç: 'c', ô: 'o' };

/** Case- and accent-free text; a letter missing from the table above stops the fixture instead of passing unfolded. */
function foldKey(text: string): string {
  const key = [...text].map((c) => UNACCENTED[c] ?? c).join('').toLowerCase();
  if (/[^\u0000-\u007f]/.test(key)) throw new Error(`catalogue fixture: add the accented letters of ${JSON.stringify(text)} to UNACCENTED`);
  return key;
}

export function watchDoc(seed: WatchSeed, lang: Language): WatchDoc {
  const collection = COLLECTIONS[seed.collection]!;
  const description = seed.description?.[lang] ?? `${seed.name[lang]}: ${lang === 'en' ? 'a watch of the' : 'une montre de la collection'} ${collection.name[lang]}.`;
  const stock = seed.stock_status ?? 'in_stock';
  return {
    _id: `${lang}:${seed.reference}`,
    lang,
    reference: seed.reference,
    name: seed.name[lang],
    collection: { code: seed.collection, name: collection.name[lang] },
    short_description: `${seed.name[lang]} (${lang})`,
    description,
    price_cents: seed.price_cents,
    stock_status: stock,
    in_stock: stock === 'in_stock' || stock === 'low_stock',
    image: { url: `/images/${seed.reference}.jpg`, alt: seed.name[lang] },
    images: [{ url: `/images/${seed.reference}.jpg`, alt: seed.name[lang], role: 'main' }],
    specifications: { case_diameter: `${collection.diameter_mm} mm`, material: lang === 'en' ? 'steel' : 'acier' },
    features: [lang === 'en' ? 'Sapphire crystal' : 'Verre saphir'],
    seo: { title: seed.name[lang], description, keywords: [seed.reference], canonical_path: `/watches/${seed.reference}` },
    manufacture: { name: 'Maison Test', origin: lang === 'en' ? 'Switzerland' : 'Suisse' },
    customizable: seed.customizable ?? false,
    sort_name: foldKey(seed.name[lang]),
    sort_collection: foldKey(collection.name[lang]),
    search_text: foldKey(`${seed.name[lang]} ${seed.reference} ${description}`),
    search_grams: gramsOf(foldKey(`${seed.name[lang]} ${seed.reference} ${description}`)),
    position: 10,
  };
}

/** The three characters from each position on (fewer at the end): the trigrams, the last bigram, the last character. */
function gramsOf(text: string): string[] {
  return [...new Set([...text].map((_char, at, chars) => chars.slice(at, at + 3).join('')))];
}

export function collectionDoc(code: string, lang: Language): CollectionDoc {
  const collection = COLLECTIONS[code]!;
  return {
    _id: `${lang}:${code}`, lang, code, name: collection.name[lang],
    short_description: `${collection.name[lang]} short`, description: `${collection.name[lang]} long`,
    type: collection.type, diameter_mm: collection.diameter_mm,
    sort_name: foldKey(collection.name[lang]), position: 10,
  };
}

/** The collections projection's record of each watch: which collection counts it, at which price. */
export function memberDoc(watch: WatchSeed): CollectionMemberDoc {
  return { _id: `member:${watch.reference}`, reference: watch.reference, member_of: watch.collection, price_cents: watch.price_cents, position: 10 };
}

/** Regate offers case, dial and bracelet; its two customizable watches are its models. */
function regateConfigurator(lang: Language): ConfiguratorDoc {
  const offered: Partial<Record<CategoryKey, { code: string; label: string; price_cents: number; default: boolean }[]>> = {
    case: [
      { code: 'steel', label: lang === 'en' ? 'Steel' : 'Acier', price_cents: 0, default: true },
      { code: 'gold', label: lang === 'en' ? 'Rose gold' : 'Or rose', price_cents: 850050, default: false },
    ],
    dial: [
      { code: 'black', label: lang === 'en' ? 'Black' : 'Noir', price_cents: 0, default: true },
      { code: 'blue', label: lang === 'en' ? 'Blue' : 'Bleu', price_cents: 45025, default: false },
    ],
    case_back: [
      { code: 'solid', label: lang === 'en' ? 'Solid' : 'Plein', price_cents: 0, default: true },
      { code: 'sapphire', label: lang === 'en' ? 'Sapphire' : 'Saphir', price_cents: 120000, default: false },
    ],
  };
  return {
    _id: `${lang}:regate`, lang,
    collection: { code: 'regate', name: COLLECTIONS['regate']!.name[lang] },
    categories: CATEGORY_KEYS.map((key) => ({ key, label: `${key} (${lang})`, options: offered[key] ?? [] })),
    accessories: [
      { code: 'strap', label: lang === 'en' ? 'Extra strap' : 'Bracelet supplémentaire', unit_price_cents: 25010, max_quantity: 3 },
      { code: 'box', label: lang === 'en' ? 'Travel box' : 'Écrin de voyage', unit_price_cents: 9999, max_quantity: 1 },
    ],
    position: 10,
  };
}

export const SERIALS: SerialDoc[] = [
  { _id: 'AUR-0001', serial: 'AUR-0001', status: 'authentic', reference: 'RG-100', collection: 'regate', manufacture_year: 2021, model: { en: 'Regate Automatic', fr: 'Régate Automatique' }, position: 11 },
  { _id: 'AUR-0666', serial: 'AUR-0666', status: 'stolen', reference: 'HE-100', collection: 'heritage', manufacture_year: 2019, model: { en: 'Heritage Small Seconds', fr: 'Héritage Petite Seconde' }, position: 12 },
];

/**
 * The checkpoint of a projection's live generation in a store nobody rebuilt, its head confirmed now (so the read
 * model is built and fresh, as a running projector keeps it).
 */
export function checkpoint(name: string, position: number, updatedAt = '2025-01-02T03:04:05.000Z'): CheckpointState & StoredDoc {
  return {
    ...newCheckpoint(name, FIRST_GENERATION, 0, position), updated_at: updatedAt, confirmed: { head: position, at: new Date().toISOString() },
  };
}

/** Puts documents; checkpoints are control documents, set whatever is stored. */
export async function putAll(store: ReadStore, collection: ReadCollection, docs: StoredDoc[]): Promise<void> {
  if (collection === 'checkpoints') {
    for (const doc of docs) await store.setControl({ ...doc }, {}, true);
  } else await store.write(collection, docs.map((put) => ({ put })));
}

/** Writes the whole fixture catalogue, in both languages, into `store`. */
export async function loadFixtureCatalogue(store: ReadStore): Promise<void> {
  const langs: Language[] = ['en', 'fr'];
  await putAll(store, 'watches', langs.flatMap((lang) => WATCHES.map((w) => watchDoc(w, lang))));
  await putAll(store, 'collections', [
    ...langs.flatMap((lang) => Object.keys(COLLECTIONS).map((c) => collectionDoc(c, lang))), ...WATCHES.map(memberDoc),
  ]);
  await putAll(store, 'configurators', langs.map(regateConfigurator));
  await putAll(store, 'serials', SERIALS);
  await putAll(store, 'checkpoints', [
    checkpoint('watches', 42), checkpoint('serials', 40, '2025-01-02T03:04:06.000Z'), checkpoint('collections', 42), checkpoint('configurators', 42),
  ]);
}
