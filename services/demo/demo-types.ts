/** The shapes the demo collection modules fill in; the builder turns them into catalogue-file entries. */
import type { LocalizedList, LocalizedText, StockStatus } from '../../shared/events/index.ts';
import type { ConfiguratorEntry } from '../catalogue/catalogue-file.ts';
import type { CollectionDefined, WatchPublished } from '../../shared/events/index.ts';
import type { DialKey, MaterialKey, StrapKey } from './vocabulary.ts';

type LocalizedSpecs = { en: Record<string, string>; fr: Record<string, string> };

/** What every watch of a collection shares: its movement, its workshop, the opening of its texts. */
export interface CollectionProfile {
  collection: CollectionDefined;
  /** Reference prefix, e.g. `AUR-DR`; watches are numbered after it. */
  referencePrefix: string;
  /** Sentence that places each watch in its collection, closing its description. */
  closing: LocalizedText;
  /** Specifications common to the collection (movement, calibre, power reserve, crystal...). */
  specifications: LocalizedSpecs;
  /** Two or three features every watch of the collection has. */
  features: LocalizedList;
  keywords: LocalizedList;
  workshop: LocalizedText;
  /** Thickness of the case in millimetres, unless a watch says otherwise. */
  thickness_mm: number;
  /** First year serials of this collection were registered. */
  firstYear: number;
}

/** One watch of a collection: only what sets it apart; the rest comes from its profile and the vocabulary. */
export interface WatchVariant {
  number: number;
  name: LocalizedText;
  short_description: LocalizedText;
  /** One or two sentences only this watch has: the opening of its description. */
  story: LocalizedText;
  material: MaterialKey;
  dial: DialKey;
  strap: StrapKey;
  price_cents: number;
  stock_status: StockStatus;
  customizable?: boolean;
  diameter_mm?: number;
  /** Extra features of this watch, added to the collection's. */
  features?: LocalizedList;
  /** Specifications of this watch that replace or add to the collection's. */
  specifications?: LocalizedSpecs;
}

/** One collection of the demo catalogue, as the catalogue file holds it. */
export interface DemoCollection {
  collection: CollectionDefined;
  watches: WatchPublished[];
  configurator: ConfiguratorEntry;
  firstYear: number;
}
