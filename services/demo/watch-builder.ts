/**
 * Turns a collection profile and the few facts that set a watch apart into a complete `WatchPublished`: every
 * text in both languages, specifications, images, features and SEO, phrased the same way across the catalogue.
 */
import type { Language, LocalizedList, LocalizedText, WatchPublished } from '../../shared/events/index.ts';
import { BRAND } from '../../shared/brand.ts';
import type { ConfiguratorEntry } from '../catalogue/catalogue-file.ts';
import type { CollectionProfile, DemoCollection, WatchVariant } from './demo-types.ts';
import { DIALS, MATERIALS, STRAPS } from './vocabulary.ts';

const MAX_FEATURES = 6;

/** `39.5` as `39.5 mm` in English and `39,5 mm` in French. */
function millimetres(value: number, lang: Language): string {
  const text = String(value);
  return `${lang === 'fr' ? text.replace('.', ',') : text} mm`;
}

function referenceOf(profile: CollectionProfile, number: number): string {
  return `${profile.referencePrefix}-${String(number).padStart(3, '0')}`;
}

function both(make: (lang: Language) => string): LocalizedText {
  return { en: make('en'), fr: make('fr') };
}

/** A phrase such as "a salmon dial" / "un cadran saumon" as a list item: "Salmon dial" / "Cadran saumon". */
function asItem(phrase: string): string {
  const bare = phrase.replace(/^(an?|une?) /, '');
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

/**
 * The watch's own features first, then the collection's, then its case, dial and strap: the case and the dial
 * always give an item (their own feature, or their description), so every watch has at least three.
 */
function featuresOf(profile: CollectionProfile, variant: WatchVariant, size: (lang: Language) => string): LocalizedList {
  const material = MATERIALS[variant.material];
  const dial = DIALS[variant.dial];
  const strap = STRAPS[variant.strap];
  const caseItem = material.feature ?? { en: `${size('en')} case in ${material.phrase.en}`, fr: `Boîtier de ${size('fr')} en ${material.phrase.fr}` };
  const dialItem = dial.feature ?? both((lang) => asItem(dial.phrase[lang]));
  const extras = [caseItem, dialItem, ...(strap.feature ? [strap.feature] : [])];
  const pick = (lang: Language): string[] => [
    ...(variant.features?.[lang] ?? []),
    ...profile.features[lang],
    ...extras.map((feature) => feature[lang]),
  ].slice(0, MAX_FEATURES);
  return { en: pick('en'), fr: pick('fr') };
}

function buildWatch(profile: CollectionProfile, variant: WatchVariant): WatchPublished {
  const reference = referenceOf(profile, variant.number);
  const { name, short_description: short, story } = variant;
  const material = MATERIALS[variant.material];
  const dial = DIALS[variant.dial];
  const strap = STRAPS[variant.strap];
  const diameter = variant.diameter_mm ?? profile.collection.diameter_mm;
  const size = (lang: Language) => millimetres(diameter, lang);
  // The read API draws these on request (read-api/discovery/watch-images.ts): no photograph ships with the demo.
  const imageDir = `/images/watches/${reference}`;

  const description = {
    en: `${story.en} Its ${size('en')} case in ${material.phrase.en} frames ${dial.phrase.en}, and the watch is worn on ` +
      `${strap.phrase.en}. ${profile.closing.en}`,
    fr: `${story.fr} Son boîtier de ${size('fr')} en ${material.phrase.fr} encadre ${dial.phrase.fr}, et la montre se porte ` +
      `sur ${strap.phrase.fr}. ${profile.closing.fr}`,
  };
  const specs = (lang: Language): Record<string, string> => ({
    ...profile.specifications[lang],
    case_diameter: size(lang),
    case_thickness: millimetres(profile.thickness_mm, lang),
    case_material: material.spec[lang],
    dial: dial.spec[lang],
    strap: strap.spec[lang],
    ...variant.specifications?.[lang],
  });
  const images: WatchPublished['images'] = [
    { path: `${imageDir}/main.svg`, role: 'main', alt: both((l) => (l === 'en' ? `${name.en}, front view` : `${name.fr}, vue de face`)) },
    { path: `${imageDir}/three-quarter.svg`, role: 'gallery', alt: both((l) => (l === 'en' ? `${name.en} seen at a three-quarter angle` : `${name.fr} vue de trois quarts`)) },
    { path: `${imageDir}/dial.svg`, role: 'detail', alt: both((l) => (l === 'en' ? `${name.en}: close-up of the dial` : `${name.fr} : gros plan sur le cadran`)) },
  ];
  // Only some watches have a wrist shot, as in a real catalogue where photography lags behind new references.
  if (variant.number % 2 === 1) {
    images.push({ path: `${imageDir}/wrist.svg`, role: 'wrist', alt: both((l) => (l === 'en' ? `${name.en} on the wrist` : `${name.fr} portée au poignet`)) });
  }

  return {
    reference,
    collection: profile.collection.code,
    name,
    short_description: short,
    description,
    specifications: { en: specs('en'), fr: specs('fr') },
    images,
    features: featuresOf(profile, variant, size),
    seo: {
      title: both((l) => `${name[l]} | ${profile.collection.name[l]} | ${BRAND.name}`),
      description: {
        en: `${short.en} ${size('en')} case in ${material.phrase.en}, ref. ${reference}.`,
        fr: `${short.fr} Boîtier de ${size('fr')} en ${material.phrase.fr}, réf. ${reference}.`,
      },
      keywords: {
        en: [name.en, reference, ...profile.keywords.en, material.spec.en],
        fr: [name.fr, reference, ...profile.keywords.fr, material.spec.fr],
      },
    },
    manufacture: { name: BRAND.name, origin: BRAND.origin, workshop: profile.workshop },
    customizable: variant.customizable ?? true,
    price_cents: variant.price_cents,
    stock_status: variant.stock_status,
  };
}

/** A collection's catalogue entries: its definition, its watches built from their variants, its configurator. */
export function assembleCollection(profile: CollectionProfile, variants: WatchVariant[], configurator: ConfiguratorEntry): DemoCollection {
  return {
    collection: profile.collection,
    watches: variants.map((variant) => buildWatch(profile, variant)),
    configurator,
    firstYear: profile.firstYear,
  };
}
