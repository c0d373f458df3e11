/**
 * The manufacture the service speaks for. One definition, read by the demo catalogue, the status operation and
 * the discovery files. Fictional.
 */
import { baseUrlOrRoot, type BaseUrlConfig } from './public-base-url.ts';

export const BRAND = {
  name: 'Maison Aurèle',
  tagline: { en: 'Fine watchmaking from the Vallée de Joux since 1891', fr: 'Haute horlogerie de la Vallée de Joux depuis 1891' },
  summary: {
    en: 'Independent Swiss manufacture of mechanical watches: dress, sport, diver, chronograph, pilot, complication and heritage collections, each made in house and customizable to order.',
    fr: 'Manufacture suisse indépendante de montres mécaniques : collections habillées, sport, plongée, chronographes, aviateur, complications et patrimoine, fabriquées en interne et personnalisables sur commande.',
  },
  country: 'CH',
  origin: { en: 'Le Sentier, Vallée de Joux, Switzerland', fr: 'Le Sentier, Vallée de Joux, Suisse' },
  founded: 1891,
  languages: ['en', 'fr'] as const,
  currency: 'EUR',
  /** Custom orders are delivered 8 to 12 weeks after the order is confirmed. */
  customOrderDeliveryWeeks: { min: 8, max: 12 },
} as const;

/** The brand as the status operation shows it. */
export function publicBrand(config: BaseUrlConfig) {
  return { name: BRAND.name, tagline: BRAND.tagline, country: BRAND.country, founded: BRAND.founded, website: baseUrlOrRoot(config) };
}
