/** Event data with sensible defaults, for decider and handler tests; override what the test is about. */
import type {
  AccessoryOffered, CollectionDefined, ConfiguratorOptionOffered, EventOf, EventType, WatchPublished,
} from '../../../../shared/events/index.ts';

export function event<T extends EventType>(type: T, data: EventOf<T>['data']): EventOf<T> {
  return { type, data } as EventOf<T>;
}

const text = (en: string, fr: string) => ({ en, fr });

export function aCollection(overrides: Partial<CollectionDefined> = {}): CollectionDefined {
  return {
    code: 'lumiere',
    name: text('Lumière', 'Lumière'),
    short_description: text('Dress watches', 'Montres habillées'),
    description: text('Thin gold dress watches.', 'Montres habillées en or, extra-plates.'),
    type: 'dress',
    diameter_mm: 38,
    ...overrides,
  };
}

export function aWatch(overrides: Partial<WatchPublished> = {}): WatchPublished {
  return {
    reference: 'AUR-LU-001',
    collection: 'lumiere',
    name: text('Lumière Classic', 'Lumière Classique'),
    short_description: text('A thin dress watch', 'Une montre habillée extra-plate'),
    description: text('Gold case, white dial.', 'Boîte en or, cadran blanc.'),
    specifications: { en: { case_diameter: '38 mm' }, fr: { case_diameter: '38 mm' } },
    images: [{ path: '/images/aur-lu-001.jpg', alt: text('Front view', 'Vue de face'), role: 'main' }],
    features: { en: ['Gold case'], fr: ['Boîte en or'] },
    seo: { title: text('Lumière Classic', 'Lumière Classique'), description: text('Dress watch', 'Montre habillée'), keywords: { en: [], fr: [] } },
    manufacture: { name: 'Maison Aurèle', origin: text('Geneva', 'Genève') },
    customizable: true,
    price_cents: 1_250_000,
    stock_status: 'in_stock',
    ...overrides,
  };
}

export function anOption(overrides: Partial<ConfiguratorOptionOffered> = {}): ConfiguratorOptionOffered {
  return { collection: 'lumiere', category: 'dial', code: 'white', label: text('White', 'Blanc'), price_cents: 0, ...overrides };
}

export function anAccessory(overrides: Partial<AccessoryOffered> = {}): AccessoryOffered {
  return {
    collection: 'lumiere', code: 'strap', label: text('Spare strap', 'Bracelet de rechange'), unit_price_cents: 25_000,
    max_quantity: 3, ...overrides,
  };
}
