/**
 * The demo catalogue of Maison Aurèle, a fictional manufacture: seven collections, seventy watches, a configurator
 * per collection and a registry of serials. The service loads it on first start; `watchcat import` takes the same format.
 */
import type { CatalogueFile } from '../catalogue/catalogue-file.ts';
import { abysse } from './collections/abysse.ts';
import { aeronef } from './collections/aeronef.ts';
import { astrale } from './collections/astrale.ts';
import { heritage } from './collections/heritage.ts';
import { lumiere } from './collections/lumiere.ts';
import { regate } from './collections/regate.ts';
import { tempo } from './collections/tempo.ts';
import type { DemoCollection } from './demo-types.ts';
import { demoSerials } from './serials.ts';

export { DEMO_SERIALS } from './serials.ts';

const DEMO_COLLECTIONS: readonly DemoCollection[] = [lumiere, regate, abysse, tempo, aeronef, astrale, heritage];

/** A fresh copy on every call, so a caller may change it freely. */
export function demoCatalogue(): CatalogueFile {
  const catalogue: CatalogueFile = {
    collections: DEMO_COLLECTIONS.map((entry) => entry.collection),
    watches: DEMO_COLLECTIONS.flatMap((entry) => entry.watches),
    configurators: DEMO_COLLECTIONS.map((entry) => entry.configurator),
    serials: demoSerials(DEMO_COLLECTIONS.flatMap((entry) => entry.watches.map((watch) => ({ reference: watch.reference, firstYear: entry.firstYear })))),
  };
  return structuredClone(catalogue);
}
