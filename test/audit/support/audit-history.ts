/**
 * A small history with known changes at known times, written to a SQLite event store in a temporary DATA_DIR.
 * Times are one hour apart from 2025-03-01T08:00Z, so a test can name a moment between any two events.
 */
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { randomUUID } from 'node:crypto';
import type { EventOf, EventType } from '../../../shared/events/index.ts';
import { streams, type NewEvent } from '../../../shared/ports/event-store.ts';
import {
  collectionDefined, eventMetadata, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished, watchStockChanged,
  watchWithdrawn,
} from '../../fixtures/events.ts';

export const hour = (n: number): string => new Date(Date.UTC(2025, 2, 1, 8 + n)).toISOString();

/** `at(n)` metadata: the event occurred at hour n, as part of correlation `corr-n`. */
const at = (n: number) => ({ occurred_at: hour(n), correlation_id: `corr-${n}`, actor: `auditor-test-${n}` });

function configuratorEvent<T extends EventType>(type: T, data: EventOf<T>['data'], hourNumber: number): NewEvent {
  return { id: randomUUID(), type, data, metadata: eventMetadata(at(hourNumber)) } as NewEvent;
}

/** Price of the `blue` dial option before and after its reprice at hour 9, in cents. */
export const BLUE_DIAL_CENTS = { offered: 50_000, repriced: 75_000 } as const;

/**
 * The appends in order: [stream, events]; positions 1..12 in this order, at these hours:
 * 1 collection regate (h0), 2 RG-1 published at 10,000 EUR, customizable (h1), 3 RG-2 published at 20,000 EUR (h2),
 * 4 RG-1 repriced 12,500 EUR (h3), 5 serial SN-0001 registered (h4), 6 RG-2 out of stock (h5), 7 SN-0001 stolen (h6),
 * 8 RG-2 withdrawn (h7), 9-11 dial options silver (default, free) and blue (500 EUR) (h8), 12 blue repriced (h9).
 */
export function knownHistory(): [string, NewEvent[]][] {
  return [
    [streams.collection('regate'), [collectionDefined('regate', { name: { en: 'Regatta', fr: 'Régate' } }, at(0))]],
    [streams.watch('RG-1'), [watchPublished('RG-1', 'regate', {
      name: { en: 'Regatta One', fr: 'Régate Un' }, price_cents: 1_000_000, customizable: true,
    }, at(1))]],
    [streams.watch('RG-2'), [watchPublished('RG-2', 'regate', { name: { en: 'Regatta Two', fr: 'Régate Deux' }, price_cents: 2_000_000 }, at(2))]],
    [streams.watch('RG-1'), [watchPriceChanged('RG-1', 1_250_000, 1_000_000, at(3))]],
    [streams.serial('SN-0001'), [serialRegistered('SN-0001', { reference: 'RG-1', collection: 'regate', model: { en: 'Regatta One', fr: 'Régate Un' } }, at(4))]],
    [streams.watch('RG-2'), [watchStockChanged('RG-2', 'out_of_stock', at(5))]],
    [streams.serial('SN-0001'), [serialReportedStolen('SN-0001', at(6))]],
    [streams.watch('RG-2'), [watchWithdrawn('RG-2', at(7))]],
    [streams.configurator('regate'), [
      configuratorEvent('ConfiguratorOptionOffered', {
        collection: 'regate', category: 'dial', code: 'silver', label: { en: 'Silver dial', fr: 'Cadran argenté' }, price_cents: 0,
      }, 8),
      configuratorEvent('ConfiguratorDefaultChosen', { collection: 'regate', category: 'dial', code: 'silver' }, 8),
      configuratorEvent('ConfiguratorOptionOffered', {
        collection: 'regate', category: 'dial', code: 'blue', label: { en: 'Blue dial', fr: 'Cadran bleu' }, price_cents: BLUE_DIAL_CENTS.offered,
      }, 8),
    ]],
    [streams.configurator('regate'), [
      configuratorEvent('ConfiguratorOptionRepriced', { collection: 'regate', category: 'dial', code: 'blue', price_cents: BLUE_DIAL_CENTS.repriced }, 9),
    ]],
  ];
}

export interface TempStore {
  dataDir: string;
  file: string;
  env: Record<string, string>;
}

export async function writeKnownHistory(): Promise<TempStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchcat-audit-'));
  const file = join(dataDir, 'events.sqlite3');
  const store = openSqliteEventStore(file);
  try {
    for (const [stream, events] of knownHistory()) await store.append(stream, events, 'any');
  } finally {
    await store.close();
  }
  return { dataDir, file, env: { DATA_DIR: dataDir } };
}

/** The chain hash the SQLite file stores for `position`, read from the file itself (hex), not through the store's code. */
export function storedChainHash(file: string, position: number): string {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT chain_hash FROM events WHERE position = ?').pluck().get(position) as Buffer).toString('hex');
  } finally {
    db.close();
  }
}
