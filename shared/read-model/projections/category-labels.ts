/** The configurator categories' names in each language, as the public options answer shows them. */
import type { CategoryKey, Language } from '../../events/index.ts';

export const CATEGORY_LABELS: Record<CategoryKey, Record<Language, string>> = {
  case: { en: 'Case', fr: 'Boîtier' },
  dial: { en: 'Dial', fr: 'Cadran' },
  lugs: { en: 'Lugs', fr: 'Cornes' },
  crown: { en: 'Crown', fr: 'Couronne' },
  case_back: { en: 'Case back', fr: 'Fond de boîte' },
  engraving: { en: 'Engraving', fr: 'Gravure' },
  movement: { en: 'Movement', fr: 'Mouvement' },
  rehaut: { en: 'Rehaut', fr: 'Rehaut' },
  bracelet: { en: 'Bracelet', fr: 'Bracelet' },
  tachymeter: { en: 'Tachymeter', fr: 'Tachymètre' },
  pushers: { en: 'Pushers', fr: 'Poussoirs' },
};
