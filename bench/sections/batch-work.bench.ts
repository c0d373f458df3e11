/**
 * Bounded batch work (issue 28): the synchronous work of one batch of 2,000 events projected by the serials
 * projection over a registry of 10,000 and 100,000 serials, with 10 or 100 serials per watch (so a watch rename
 * reaches the same number of serials at every size), as the runner does it: `projectBatch` against the in-memory
 * store, whose reads resolve at once, so the whole call is one stretch of synchronous work. Two batches:
 * - renames: every event a `WatchRevised` with a new name of a random watch, reaching its serials by a filter (the
 *   batch loads the serials of every watch it renames): the worst case for a batch that evaluates each filter
 *   against its whole working set, and one that rewrites 2,000 times the serials of a watch;
 * - registry mix: registrations of new serials (70 %), thefts (15 %), recoveries (10 %) and renames (5 %).
 * Figures: CPU and wall time of the batch (medians of the rounds), the working-set documents the filters examined
 * per event reaching documents by filter, and the writes. Goal: under 250 ms at 100,000 serials.
 */
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { DomainEvent } from '../../shared/events/index.ts';
import { FIRST_GENERATION, type ReadStore } from '../../shared/ports/read-store.ts';
import { projectBatch } from '../../shared/read-model/projections/batch.ts';
import type { PositionedEvent } from '../../shared/read-model/projections/projection.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { serialRecovered, serialRegistered, serialReportedStolen } from '../../test/fixtures/events.ts';
import { table } from '../report/table.ts';
import { median, round } from '../report/stats.ts';

export interface BatchWorkSettings { serials: number[]; serialsPerWatch: number[]; rounds: number }
export interface BatchWorkFigures {
  serials: number;
  serials_per_watch: number;
  batch: 'renames' | 'registry mix';
  events: number;
  cpu_ms: number;
  wall_ms: number;
  examined_per_filtered_event: number;
  writes: number;
}

const BATCH = 2_000;
const GOAL_MS = 250;
const reference = (watch: number) => `BW-${String(watch).padStart(5, '0')}`;
const serial = (index: number) => `BW-S${String(index).padStart(7, '0')}`;
const rename = (watch: number, n: number): DomainEvent =>
  ({ type: 'WatchRevised', data: { reference: reference(watch), name: { en: `Model ${n}`, fr: `Modèle ${n}` } } }) as DomainEvent;

export async function benchBatchWork(settings: BatchWorkSettings): Promise<BatchWorkFigures[]> {
  const figures: BatchWorkFigures[] = [];
  for (const size of settings.serials) for (const perWatch of settings.serialsPerWatch) {
    const store = createMemoryReadStore();
    const watches = size / perWatch;
    await register(store, size, watches);
    const random = seededRandom(size);
    const renames = Array.from({ length: BATCH }, (_, n) => rename(between(random, 0, watches - 1), n));
    const mix = Array.from({ length: BATCH }, (_, n): DomainEvent => {
      const roll = random();
      if (roll < 0.7) return serialRegistered(serial(size + n), { reference: reference(between(random, 0, watches - 1)), collection: 'bench' });
      if (roll < 0.85) return serialReportedStolen(serial(between(random, 0, size - 1)));
      if (roll < 0.95) return serialRecovered(serial(between(random, 0, size - 1)));
      return rename(between(random, 0, watches - 1), n);
    });
    figures.push({ serials_per_watch: perWatch, ...await measure(store, size, 'renames', renames, settings.rounds) });
    figures.push({ serials_per_watch: perWatch, ...await measure(store, size, 'registry mix', mix, settings.rounds) });
    await store.close();
  }
  return figures;
}

/** `size` serials over `watches` watches, projected into the store in batches of 5,000. */
async function register(store: ReadStore, size: number, watches: number): Promise<void> {
  const target = store.generation('serials', FIRST_GENERATION);
  for (let start = 0; start < size; start += 5_000) {
    const events = Array.from({ length: Math.min(5_000, size - start) }, (_, i) => {
      const index = start + i;
      return { ...serialRegistered(serial(index), { reference: reference(index % watches), collection: 'bench' }), position: index + 1 } as PositionedEvent;
    });
    await target.write(await projectBatch(serialsProjection, events, target), { handOver: true });
  }
}

async function measure(
  store: ReadStore, size: number, batch: BatchWorkFigures['batch'], events: DomainEvent[], rounds: number,
): Promise<Omit<BatchWorkFigures, 'serials_per_watch'>> {
  const positioned = events.map((e, i) => ({ type: e.type, data: e.data, position: size + 1 + i }) as PositionedEvent);
  const filtered = positioned.filter((e) => serialsProjection.touches(e).filter).length;
  const target = store.generation('serials', FIRST_GENERATION);
  const cpu: number[] = [];
  const wall: number[] = [];
  let examined = 0;
  let writes = 0;
  // The batch's writes are not made: every round projects the same batch over the same registry.
  for (let r = 0; r < rounds; r += 1) {
    // A write of a document no batch reads, so that the store answers the batch's find afresh, not from its cache.
    await target.write([{ put: { _id: `${batch} round ${r}`, position: 1 } }]);
    const work = { examined: 0 };
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const ops = await projectBatch(serialsProjection, positioned, target, { work });
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    examined = work.examined;
    writes = ops.length;
  }
  return {
    serials: size, batch, events: positioned.length, cpu_ms: round(median(cpu), 1), wall_ms: round(median(wall), 1),
    examined_per_filtered_event: filtered === 0 ? 0 : round(examined / filtered, 1), writes,
  };
}

export function batchWorkTable(figures: BatchWorkFigures[]): string {
  return table(`Bounded batch work: one batch of ${BATCH} events through the serials projection (goal: < ${GOAL_MS} ms at 100,000 serials)`,
    ['serials', 'per watch', 'batch', 'CPU ms', 'wall ms', 'examined per filtered event', 'writes', 'met'],
    figures.map((f) => [f.serials, f.serials_per_watch, f.batch, f.cpu_ms, f.wall_ms, f.examined_per_filtered_event, f.writes, f.cpu_ms < GOAL_MS ? 'yes' : 'NO']));
}
