/**
 * A large, valid catalogue history drawn from a seeded generator, for replay and crash tests: collections and
 * their renames, watches with price, stock and text changes, withdrawals, a configurator, and many serials
 * registered, reported stolen and recovered. Built from the event fixtures and appended straight to a store (much
 * faster than sending thousands of commands).
 */
import { randomUUID } from 'node:crypto';
import type { EventOf, EventType } from '../../shared/events/index.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import {
  collectionDefined, eventMetadata, serialRecovered, serialRegistered, serialReportedStolen, watchPriceChanged,
  watchPublished, watchStockChanged, watchWithdrawn,
} from '../fixtures/events.ts';
import { appendAll } from '../projector/support/history.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';

const event = <T extends EventType>(type: T, data: EventOf<T>['data']): NewEvent =>
  ({ id: randomUUID(), type, data, metadata: eventMetadata() }) as NewEvent;

const COLLECTIONS = ['tempo', 'abysse', 'regate'] as const;
const STOCK = ['in_stock', 'low_stock', 'out_of_stock', 'made_to_order'] as const;

export function largeHistory(seed: number, size: number): NewEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[between(random, 0, items.length - 1)]!;
  const events: NewEvent[] = COLLECTIONS.map((code) => collectionDefined(code));
  const prices = new Map<string, number>();
  const published: string[] = [];
  const serials: { serial: string; stolen: boolean }[] = [];
  for (let i = 0; i < 30; i++) {
    const reference = `LH-${String(i).padStart(3, '0')}`;
    const price = between(random, 500_000, 5_000_000);
    const collection = COLLECTIONS[i % COLLECTIONS.length]!;
    events.push(watchPublished(reference, collection, { price_cents: price, customizable: i % 3 === 0, stock_status: pick(STOCK) }));
    prices.set(reference, price);
    published.push(reference);
  }
  events.push(
    event('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'blue', label: { en: 'Blue', fr: 'Bleu' }, price_cents: 0 }),
    event('ConfiguratorDefaultChosen', { collection: 'tempo', category: 'dial', code: 'blue' }),
    event('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'white', label: { en: 'White', fr: 'Blanc' }, price_cents: 50_000 }),
    event('AccessoryOffered', { collection: 'tempo', code: 'strap', label: { en: 'Strap', fr: 'Bracelet' }, unit_price_cents: 30_000, max_quantity: 2 }),
  );
  while (events.length < size) {
    const roll = random();
    if (roll < 0.4 || serials.length === 0) {
      const serial = `LH-S${String(serials.length).padStart(6, '0')}`;
      const reference = pick(published);
      const collection = COLLECTIONS[Number(reference.slice(3)) % COLLECTIONS.length]!;
      events.push(serialRegistered(serial, { reference, collection }));
      serials.push({ serial, stolen: false });
    } else if (roll < 0.55) {
      const entry = pick(serials);
      events.push(entry.stolen ? serialRecovered(entry.serial) : serialReportedStolen(entry.serial));
      entry.stolen = !entry.stolen;
    } else if (roll < 0.8) {
      const reference = pick(published);
      const next = between(random, 500_000, 5_000_000);
      events.push(watchPriceChanged(reference, next, prices.get(reference)!));
      prices.set(reference, next);
    } else if (roll < 0.92) {
      events.push(watchStockChanged(pick(published), pick(STOCK)));
    } else if (roll < 0.97) {
      events.push(event('WatchRevised', { reference: pick(published), name: { en: `Model ${events.length}`, fr: `Modèle ${events.length}` } }));
    } else if (roll < 0.99) {
      events.push(event('CollectionRevised', { code: pick(COLLECTIONS), name: { en: `Line ${events.length}`, fr: `Ligne ${events.length}` } }));
    } else if (published.length > 20) {
      // Withdrawn watches leave the pool: nothing may happen to them afterwards. Their serials stay.
      const reference = published.splice(between(random, 0, published.length - 1), 1)[0]!;
      events.push(watchWithdrawn(reference));
    }
  }
  return events;
}

/** Appends `largeHistory(seed, size)` to `store`; answers the head position. */
export function appendLargeHistory(store: EventStore, seed: number, size: number): Promise<number> {
  return appendAll(store, largeHistory(seed, size));
}
