/**
 * The watch `watchcat watch example` prints: every field a watch file takes, filled as a real one would be, which
 * `watchcat watch create --file` publishes unchanged into the demo catalogue (its collection, `lumiere`, is the
 * demo's; its reference is none of the demo's). A person copies it, changes what differs, and creates a watch.
 */
import { BRAND } from '../../shared/brand.ts';
import type { NewWatch } from './watch-entry.ts';

export const WATCH_EXAMPLE: NewWatch = {
  reference: 'AUR-DR-101',
  collection: 'lumiere',
  name: { en: 'Lumière Opaline Blue', fr: 'Lumière Opaline Bleue' },
  short_description: {
    en: 'A blue opaline dial with small seconds, in a 39 mm steel case.',
    fr: 'Un cadran opalin bleu à petite seconde, dans un boîtier acier de 39 mm.',
  },
  description: {
    en: 'The Lumière in steel, its opaline dial lacquered blue by hand. Finished by hand in Le Sentier and wound by hand each morning.',
    fr: 'La Lumière en acier, son cadran opalin laqué bleu à la main. Terminée à la main au Sentier, elle se remonte à la main chaque matin.',
  },
  specifications: {
    en: { case_diameter: '39 mm', case_material: 'Stainless steel', movement: 'Hand-wound mechanical', calibre: 'AUR 120', water_resistance: '30 m (3 bar)' },
    fr: { case_diameter: '39 mm', case_material: 'Acier inoxydable', movement: 'Mécanique à remontage manuel', calibre: 'AUR 120', water_resistance: '30 m (3 bar)' },
  },
  images: [
    { path: '/images/watches/AUR-DR-101/main.svg', role: 'main', alt: { en: 'Lumière Opaline Blue, front view', fr: 'Lumière Opaline Bleue, vue de face' } },
  ],
  features: {
    en: ['Blue opaline dial', 'Ultra-thin hand-wound calibre AUR 120'],
    fr: ['Cadran opalin bleu', 'Calibre extra-plat AUR 120 à remontage manuel'],
  },
  seo: {
    title: { en: `Lumière Opaline Blue | Lumière | ${BRAND.name}`, fr: `Lumière Opaline Bleue | Lumière | ${BRAND.name}` },
    description: {
      en: 'A blue opaline dress watch in steel, ref. AUR-DR-101.',
      fr: 'Une montre habillée en acier à cadran opalin bleu, réf. AUR-DR-101.',
    },
    keywords: { en: ['dress watch', 'blue dial', 'AUR-DR-101'], fr: ['montre habillée', 'cadran bleu', 'AUR-DR-101'] },
  },
  manufacture: { name: BRAND.name, origin: BRAND.origin, workshop: { en: 'Dress watch workshop, Le Sentier', fr: 'Atelier des montres habillées, Le Sentier' } },
  customizable: true,
  stock_status: 'made_to_order',
  price_eur: 14_500,
};
