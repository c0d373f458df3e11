/**
 * The manufacture as the discovery files present it: the same fictional house as the demo catalogue
 * (services/demo/brand.ts), restated here because the read API may not import from services.
 */
export const BRAND = {
  name: 'Maison Aurèle',
  tagline: { en: 'Fine watchmaking from the Vallée de Joux since 1891', fr: 'Haute horlogerie de la Vallée de Joux depuis 1891' },
  summary: {
    en: 'Independent Swiss manufacture of mechanical watches: dress, sport, diver, chronograph, pilot, complication and heritage collections, each made in house and customizable to order.',
    fr: 'Manufacture suisse indépendante de montres mécaniques : collections habillées, sport, plongée, chronographes, aviateur, complications et patrimoine, fabriquées en interne et personnalisables sur commande.',
  },
  country: 'CH',
  origin: 'Le Sentier, Vallée de Joux, Switzerland',
  founded: 1891,
  languages: ['en', 'fr'] as const,
  currency: 'EUR',
  /** Custom orders are delivered 8 to 12 weeks after the order is confirmed. */
  customOrderDeliveryWeeks: { min: 8, max: 12 },
} as const;
