/** The fictional manufacture behind the demo catalogue. No real brand is meant or imitated. */
import type { LocalizedText } from '../../shared/events/index.ts';

export const DEMO_BRAND = {
  name: 'Maison Aurèle',
  tagline: { en: 'Fine watchmaking from the Vallée de Joux since 1891', fr: 'Haute horlogerie de la Vallée de Joux depuis 1891' },
  country: 'CH',
  founded: 1891,
  origin: { en: 'Le Sentier, Vallée de Joux, Switzerland', fr: 'Le Sentier, Vallée de Joux, Suisse' } satisfies LocalizedText,
} as const;
