/**
 * Bounded work (issue 20): the cost of one catalogue search and of one price change as the catalogue grows (1,000 to
 * 100,000 watches in the demo's seven collections). The catalogue is the demo history's collections and watches,
 * each watch published again under new references, projected by every projection into the embedded store; then
 * - one search: the catalogue operation as the router calls it, right after a write to the watches (so the store's
 *   own answer cache is empty: the real cost of the find and the count);
 * - one price change: one `WatchPriceChanged` projected (load, apply, write) by every projection, as the runner does
 *   it for a batch of one (the configurators and serials projections do not handle it: a collection's models are
 *   read from the watches).
 * - heap per watch: the heap the catalogue holds (every projection, both languages) over its number of watches,
 *   measured after a full garbage collection, only when Node runs with `--expose-gc` (null otherwise).
 * Growth = CPU p50 at the largest size over CPU p50 at the smallest: near 1 means the cost does not grow with the
 * catalogue.
 */
import { join } from 'node:path';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { isUnreadable, type RecordedEvent } from '../../shared/ports/event-store.ts';
import { FIRST_GENERATION, type ReadStore } from '../../shared/ports/read-store.ts';
import { projectBatch } from '../../shared/read-model/projections/batch.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import type { PositionedEvent, Projection } from '../../shared/read-model/projections/projection.ts';
import { catalogueOperation } from '../../shared/read-model/public-api/operations/catalogue.operation.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { compileRequestValidator } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';
import { scratchDir } from '../fixtures/bench-dir.ts';
import { copyDemoStore } from '../fixtures/demo-store.ts';
import { quantile, ratio, round } from '../report/stats.ts';
import { operationEnv } from './scale.bench.ts';

export interface BoundedSettings { watches: number[]; searches: number; priceChanges: number }
/** Wall time, and CPU time of this process (user + system), which a busy shared machine moves far less. */
export interface BoundedFigures {
  size: number;
  search_p50_ms: number;
  search_p99_ms: number;
  search_cpu_p50_ms: number;
  price_change_p50_ms: number;
  price_change_p99_ms: number;
  price_change_cpu_p50_ms: number;
  heap_per_watch_kb: number | null;
}
export interface BoundedResult { sizes: BoundedFigures[]; search_growth: number; price_change_growth: number }

/** What visitors type: a word of a name, a short word, a reference fragment, an accented word, a miss. */
const SEARCHES = ['lumiere', 'or', 'bw-01', 'édition', 'chronograph', 'zzqx'];
const BATCH = 5_000;

/** `onSize` hears each size's figures as soon as they are measured (the largest size takes minutes to build). */
export async function benchBoundedWork(settings: BoundedSettings, onSize?: (figures: BoundedFigures) => void): Promise<BoundedResult> {
  const demo = await demoEvents();
  const sizes: BoundedFigures[] = [];
  for (const size of settings.watches) {
    const heapBefore = heapAfterGc();
    const store = createMemoryReadStore();
    const { references, position } = await projectCatalogue(store, demo, size);
    const heapAfter = heapAfterGc();
    const heap_per_watch_kb = heapBefore === null || heapAfter === null ? null : round((heapAfter - heapBefore) / size / 1024, 2);
    const figures = await measure(store, references, position, settings);
    sizes.push({ size, ...figures, heap_per_watch_kb });
    onSize?.(sizes.at(-1)!);
    await store.close();
  }
  const first = sizes[0]!;
  const last = sizes.at(-1)!;
  return {
    sizes,
    search_growth: ratio(last.search_cpu_p50_ms, first.search_cpu_p50_ms),
    price_change_growth: ratio(last.price_change_cpu_p50_ms, first.price_change_cpu_p50_ms),
  };
}

/** Heap in use after a full collection, when `--expose-gc` made one callable. */
function heapAfterGc(): number | null {
  const { gc } = globalThis as { gc?: () => void };
  if (!gc) return null;
  gc();
  return process.memoryUsage().heapUsed;
}

async function demoEvents(): Promise<RecordedEvent[]> {
  const scratch = scratchDir('bounded-work');
  const file = join(scratch.dir, 'events.sqlite3');
  await copyDemoStore(file);
  const eventStore = openSqliteEventStore(file);
  try {
    // The demo history is this version's own: every event reads.
    return (await eventStore.readAll({ after: 0, limit: 1_000_000 })).filter((event): event is RecordedEvent => !isUnreadable(event));
  } finally {
    await eventStore.close();
    scratch.remove();
  }
}

/** The demo's collections, then `size` watches published from the demo's own, projected by every projection. */
async function projectCatalogue(store: ReadStore, demo: RecordedEvent[], size: number): Promise<{ references: string[]; position: number }> {
  const collections = demo.filter((event) => event.type === 'CollectionDefined');
  const templates = demo.flatMap((event) => (event.type === 'WatchPublished' ? [event.data] : []));
  let position = 0;
  const events: PositionedEvent[] = collections.map((event) => ({ ...event, position: (position += 1) }));
  const references: string[] = [];
  for (let index = 0; index < size; index += 1) {
    const template = templates[index % templates.length]!;
    const reference = `BW-${String(index).padStart(6, '0')}`;
    references.push(reference);
    events.push({ type: 'WatchPublished', data: { ...template, reference }, position: (position += 1) } as PositionedEvent);
  }
  for (let start = 0; start < events.length; start += BATCH) await project(store, events.slice(start, start + BATCH));
  return { references, position };
}

async function project(store: ReadStore, events: PositionedEvent[]): Promise<void> {
  for (const projection of PROJECTIONS) {
    const ops = await projectBatch(projection as Projection, events, store.generation(projection.collection, FIRST_GENERATION));
    if (ops.length > 0) await store.write(projection.collection, ops);
  }
}

async function measure(
  store: ReadStore, references: string[], start: number, settings: BoundedSettings,
): Promise<Omit<BoundedFigures, 'size' | 'heap_per_watch_kb'>> {
  const random = seededRandom(references.length);
  let position = start;
  const validate = compileRequestValidator(catalogueOperation.spec);
  const env = operationEnv(store);
  const [touched] = await store.getMany<WatchDoc>('watches', [`en:${references[0]}`]);
  const searches: Timing[] = [];
  for (let i = 0; i < settings.searches + 10; i += 1) {
    // A write to the watches first, so neither store answers from a cache.
    await store.write('watches', [{ put: { ...touched!, position: (position += 1) } }]);
    const request = validate({ query: { search: SEARCHES[i % SEARCHES.length]!, lang: i % 2 === 0 ? 'en' : 'fr' }, path: {} });
    const timing = await timed(() => catalogueOperation.handle(request, env));
    if (i >= 10) searches.push(timing);
  }
  const changes: Timing[] = [];
  for (let i = 0; i < settings.priceChanges + 10; i += 1) {
    const reference = references[Math.floor(random() * references.length)]!;
    const price_cents = 5_000_00 + Math.floor(random() * 200_000_00);
    const event = { type: 'WatchPriceChanged', data: { reference, price_cents, previous_price_cents: 1 }, position: (position += 1) };
    const timing = await timed(() => project(store, [event as PositionedEvent]));
    if (i >= 10) changes.push(timing);
  }
  const at = (timings: Timing[], key: keyof Timing, q: number) => round(quantile(timings.map((timing) => timing[key]), q), 3);
  return {
    search_p50_ms: at(searches, 'wall', 0.5), search_p99_ms: at(searches, 'wall', 0.99), search_cpu_p50_ms: at(searches, 'cpu', 0.5),
    price_change_p50_ms: at(changes, 'wall', 0.5), price_change_p99_ms: at(changes, 'wall', 0.99),
    price_change_cpu_p50_ms: at(changes, 'cpu', 0.5),
  };
}

interface Timing { wall: number; cpu: number }

async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}
