/**
 * A small catalogue history touching every projection (collections, watches, a configurator, serials, renames,
 * price and stock changes, a withdrawal), appended to a real event store, and a snapshot of the read side.
 */
import {
  collectionDefined, serialRecovered, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished,
  watchStockChanged, watchWithdrawn, eventMetadata,
} from '../../fixtures/events.ts';
import { randomUUID } from 'node:crypto';
import type { DomainEvent, EventOf, EventType } from '../../../shared/events/index.ts';
import { streams, type EventStore, type NewEvent } from '../../../shared/ports/event-store.ts';
import type { ReadStore, StoredDoc } from '../../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../../shared/read-model/documents/documents.ts';

export function newEvent<T extends EventType>(type: T, data: EventOf<T>['data']): NewEvent {
  return { id: randomUUID(), type, data, metadata: eventMetadata() } as NewEvent;
}

/** The stream an event belongs to, as the command side names it. */
export function streamOf(event: DomainEvent): string {
  const data = event.data as Record<string, string>;
  if (event.type.startsWith('Collection')) return streams.collection(data['code']!);
  if (event.type.startsWith('Watch')) return streams.watch(data['reference']!);
  if (event.type.startsWith('Serial')) return streams.serial(data['serial']!);
  return streams.configurator(data['collection']!);
}

/** Appends each event to its stream, in order; returns the position of the last. */
export async function appendAll(store: EventStore, events: readonly NewEvent[]): Promise<number> {
  let position = 0;
  for (const event of events) position = (await store.append(streamOf(event), [event], 'any')).position;
  return position;
}

export function catalogueHistory(serialCount = 20): NewEvent[] {
  const events: NewEvent[] = [
    collectionDefined('tempo', { name: { en: 'Tempo', fr: 'Tempo' }, type: 'chronograph' }),
    collectionDefined('abysse', { name: { en: 'Abyss', fr: 'Abysse' }, type: 'diver' }),
    watchPublished('TMP-1', 'tempo', { customizable: true, price_cents: 1_200_000 }),
    watchPublished('TMP-2', 'tempo', { customizable: true, price_cents: 1_500_000 }),
    watchPublished('ABY-1', 'abysse', { price_cents: 900_000, stock_status: 'out_of_stock' }),
    newEvent('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'blue', label: { en: 'Blue', fr: 'Bleu' }, price_cents: 0 }),
    newEvent('ConfiguratorDefaultChosen', { collection: 'tempo', category: 'dial', code: 'blue' }),
    newEvent('ConfiguratorOptionOffered', { collection: 'tempo', category: 'dial', code: 'white', label: { en: 'White', fr: 'Blanc' }, price_cents: 50_000 }),
    newEvent('AccessoryOffered', { collection: 'tempo', code: 'strap', label: { en: 'Strap', fr: 'Bracelet' }, unit_price_cents: 30_000, max_quantity: 2 }),
  ];
  for (let i = 0; i < serialCount; i++) {
    events.push(serialRegistered(`TMP-${String(i).padStart(5, '0')}`, { reference: i % 2 ? 'TMP-1' : 'TMP-2', collection: 'tempo' }));
  }
  events.push(
    watchPriceChanged('TMP-1', 1_250_000, 1_200_000),
    watchStockChanged('ABY-1', 'in_stock'),
    newEvent('CollectionRevised', { code: 'tempo', name: { en: 'Tempo Racing', fr: 'Tempo Course' } }),
    newEvent('WatchRevised', { reference: 'TMP-1', name: { en: 'Racer', fr: 'Coureur' } }),
    serialReportedStolen('TMP-00001'),
    serialReportedStolen('TMP-00002'),
    serialRecovered('TMP-00002'),
    watchWithdrawn('TMP-2'),
    newEvent('ConfiguratorOptionRepriced', { collection: 'tempo', category: 'dial', code: 'white', price_cents: 60_000 }),
  );
  return events;
}

export const PROJECTED_COLLECTIONS: ReadCollection[] = ['watches', 'collections', 'configurators', 'serials'];

/** Every projected document, by collection, in `_id` order. */
export async function snapshot(store: ReadStore): Promise<Record<string, StoredDoc[]>> {
  const result: Record<string, StoredDoc[]> = {};
  for (const collection of PROJECTED_COLLECTIONS) {
    result[collection] = structuredClone(await store.find(collection, {}, { sort: { _id: 1 } }));
  }
  return result;
}
