/**
 * One projection measurement in a process of its own, so that its peak RSS is its own: `bare` reads and decodes
 * the history with nothing else (the limit), `adapter` reads it through the event store adapter (validation and
 * upcasting included), `rebuild` runs the projector's rebuild into the in-memory read store. Prints one JSON line.
 */
import Database from 'better-sqlite3';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';

export type ProjectionMode = 'bare' | 'adapter' | 'rebuild';

export interface ProjectionRun {
  mode: ProjectionMode;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  peakRssMb: number;
}

/** The batch size the rebuild reads with, so the three modes read alike. */
const BATCH = 5_000;

async function bare(file: string): Promise<number> {
  const db = new Database(file, { readonly: true });
  const select = db.prepare<[number, number]>('SELECT position, stream, revision, id, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?').raw();
  let after = 0;
  let events = 0;
  let checksum = 0;
  for (;;) {
    const rows = select.all(after, BATCH) as [number, string, number, string, string, string, string][];
    if (rows.length === 0) break;
    for (const row of rows) {
      const data = JSON.parse(row[5]) as object;
      const metadata = JSON.parse(row[6]) as { schema_version: number };
      // Touch the decoded values so the work cannot be optimised away.
      checksum += metadata.schema_version + (data === null ? 0 : 1);
    }
    events += rows.length;
    after = rows.at(-1)![0];
  }
  db.close();
  if (checksum === 0 && events > 0) throw new Error('nothing decoded');
  return events;
}

async function adapter(file: string): Promise<number> {
  const store = openSqliteEventStore(file);
  let after = 0;
  let events = 0;
  for (;;) {
    const batch = await store.readAll({ after, limit: BATCH });
    const last = batch.at(-1);
    if (!last) break;
    events += batch.length;
    after = last.position;
  }
  await store.close();
  return events;
}

async function rebuilt(file: string): Promise<number> {
  const eventStore = openSqliteEventStore(file);
  const readStore = createMemoryReadStore();
  const result = await rebuild({ eventStore, readStore, batchSize: BATCH });
  await eventStore.close();
  return result.events;
}

const [mode, file] = process.argv.slice(2) as [ProjectionMode, string];
const run = { bare, adapter, rebuild: rebuilt }[mode];
if (!run || !file) throw new Error('usage: projection-process.ts bare|adapter|rebuild FILE');
const started = performance.now();
const events = await run(file);
const seconds = (performance.now() - started) / 1000;
const result: ProjectionRun = {
  mode, events, seconds, eventsPerSecond: events / seconds, peakRssMb: process.resourceUsage().maxRSS / 1024,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
