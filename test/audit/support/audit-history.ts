/**
 * A small history with known changes at known times, written to a SQLite event store in a temporary DATA_DIR.
 * Times are one hour apart from 2025-03-01T08:00Z, so a test can name a moment between any two events.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { streams, type NewEvent } from '../../../shared/ports/event-store.ts';
import {
  collectionDefined, serialRegistered, serialReportedStolen, watchPriceChanged, watchPublished, watchStockChanged,
  watchWithdrawn,
} from '../../fixtures/events.ts';

export const hour = (n: number): string => new Date(Date.UTC(2025, 2, 1, 8 + n)).toISOString();

/** `at(n)` metadata: the event occurred at hour n, as part of correlation `corr-n`. */
const at = (n: number) => ({ occurred_at: hour(n), correlation_id: `corr-${n}`, actor: `auditor-test-${n}` });

/** The appends in order: [stream, events]. Positions are 1.. in this order. */
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
