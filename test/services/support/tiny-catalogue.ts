/** A catalogue file small enough to read in a test: one collection, two watches, a configurator, two serials. */
import type { CatalogueFile } from '../../../services/catalogue/catalogue-file.ts';
import { aCollection, aWatch } from '../../unit/services/support/builders.ts';

export function tinyCatalogue(): CatalogueFile {
  return {
    collections: [aCollection()],
    watches: [
      aWatch(),
      aWatch({ reference: 'AUR-LU-002', name: { en: 'Lumière Moon', fr: 'Lumière Lune' }, price_cents: 2_100_000, stock_status: 'low_stock' }),
    ],
    configurators: [{
      collection: 'lumiere',
      categories: {
        dial: [
          { code: 'white', label: { en: 'White', fr: 'Blanc' }, price_cents: 0, default: true },
          { code: 'black', label: { en: 'Black', fr: 'Noir' }, price_cents: 50_000 },
        ],
        case: [{ code: 'gold', label: { en: 'Gold', fr: 'Or' }, price_cents: 0, default: true }],
      },
      accessories: [{ code: 'strap', label: { en: 'Spare strap', fr: 'Bracelet de rechange' }, unit_price_cents: 25_000, max_quantity: 3 }],
    }],
    serials: [
      { serial: 'AUR-2024-000001', reference: 'AUR-LU-001', manufacture_year: 2024 },
      { serial: 'AUR-2023-000002', reference: 'AUR-LU-002', manufacture_year: 2023, stolen: true },
    ],
  };
}
