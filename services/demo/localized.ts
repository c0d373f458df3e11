/** Shorthands that keep the demo data readable: a text and a list in English then French. */
import type { LocalizedList, LocalizedText } from '../../shared/events/index.ts';

export const L = (en: string, fr: string): LocalizedText => ({ en, fr });
export const list = (en: string[], fr: string[]): LocalizedList => ({ en, fr });
