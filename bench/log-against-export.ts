/**
 * The transparency log against the hash chain export, end to end (issue 32): `node --import tsx
 * bench/log-against-export.ts [events] [rounds]` (default 10^6 events, 2 rounds). Over one SQLite event store of
 * that many events (bench/fixtures/synthetic-history.ts, generated once under `.bench/`), each round times, one after
 * the other in an order that alternates:
 * - the log: `rebuild` of the `transparency-log` projection alone into an in-memory read store, as
 *   `watchcat rebuild --projection transparency-log` runs it (reading the store, building the tiles, the switch);
 * - the export as `watchcat export --out FILE` writes it from the SQLite file (its stored hashes);
 * - the export as it is written from a store that keeps no hashes (EventStoreDB's case: read through the port and
 *   hashed on the way), here over the same SQLite store.
 * `bench/transparency-log.ts` gives the floor under both, the hashing alone over texts already in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryReadStore } from '../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../shared/read-model/projections/rebuild.ts';
import { transparencyLogProjection } from '../shared/read-model/projections/transparency-log.projection.ts';
import type { Projection } from '../shared/read-model/projections/projection.ts';
import { exportHistory } from '../services/audit/chain-audit.ts';
import { lineFile } from '../services/audit/line-file.ts';
import { recomputedLinkedRecords, sqliteLinkedRecords, type LinkedRecord } from '../services/audit/linked-history.ts';
import { openSqliteAuditHistory } from '../services/audit/sqlite-audit-reader.ts';
import { syntheticHistoryFile } from './fixtures/synthetic-history.ts';

const [events = 1_000_000, rounds = 2] = process.argv.slice(2).map(Number);
const file = await syntheticHistoryFile(events);
const out = mkdtempSync(join(tmpdir(), 'watchcat-log-export-'));

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await run();
  return (performance.now() - start) / 1000;
};

async function buildLog(): Promise<void> {
  const eventStore = openSqliteEventStore(file);
  const readStore = createMemoryReadStore();
  try {
    await rebuild({ eventStore, readStore, projections: [transparencyLogProjection as unknown as Projection] });
  } finally {
    await readStore.close();
    await eventStore.close();
  }
}

/** Written to a file as `watchcat export --out` writes it. */
async function exportTo(records: AsyncIterable<LinkedRecord> | Iterable<LinkedRecord>): Promise<void> {
  const sink = lineFile(join(out, 'export.ndjson'));
  await exportHistory(records, sink.write);
  await sink.end();
}

async function exportStoredHashes(): Promise<void> {
  const history = openSqliteAuditHistory(file);
  try {
    await exportTo(sqliteLinkedRecords(history, 0));
  } finally {
    history.close();
  }
}

async function exportRecomputed(): Promise<void> {
  const store = openSqliteEventStore(file);
  try {
    await exportTo(recomputedLinkedRecords(store, 0));
  } finally {
    await store.close();
  }
}

const runs = { log: buildLog, export_stored_hashes: exportStoredHashes, export_recomputed: exportRecomputed };
const seconds: Record<keyof typeof runs, number[]> = { log: [], export_stored_hashes: [], export_recomputed: [] };
const names = Object.keys(runs) as (keyof typeof runs)[];
try {
  for (let round = 0; round < rounds; round += 1) {
    // Each round in another order, so that a load on the machine that comes and goes weighs on each alike.
    for (const name of round % 2 === 0 ? names : [...names].reverse()) seconds[name].push(await timed(runs[name]));
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
const best = (name: keyof typeof runs) => Math.min(...seconds[name]);
const perSecond = (name: keyof typeof runs) => Math.round(events / best(name));
console.log(JSON.stringify({
  events,
  rounds,
  seconds,
  log_leaves_per_second: perSecond('log'),
  export_stored_hashes_events_per_second: perSecond('export_stored_hashes'),
  export_recomputed_events_per_second: perSecond('export_recomputed'),
  log_to_export_stored_hashes: Math.round((best('export_stored_hashes') / best('log')) * 100) / 100,
  log_to_export_recomputed: Math.round((best('export_recomputed') / best('log')) * 100) / 100,
}, null, 2));
