/**
 * Projections at scale (issue 20): how fast price changes are projected as the catalogue grows, and how fresh the
 * read models stay with two projector workers while a rebuild runs. Embedded adapters (SQLite in memory, in-memory
 * read store, in-process queues), so the figures are the projections' own, not an engine's.
 *
 * - Price changes per second at each catalogue size: collections of a fixed size (100 watches), more of them as the
 *   catalogue grows, so a price change's own collection is the same size at every scale. A projector caught up on
 *   the catalogue then projects a run of price changes of random watches in batches of 100; goal: the largest
 *   catalogue within 2x of the smallest.
 * - Freshness during a rebuild: two workers over one read store follow the feed while rebuilds of every
 *   projection run back to back; each price change is timed from its command's acknowledgement to the watch
 *   document showing it (p50, p99); goal: p99 under 250 ms.
 */
import { pino } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { WatchDoc } from '../../shared/read-model/documents/documents.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { collectionDefined, watchPriceChanged, watchPublished } from '../../test/fixtures/events.ts';
import { appendAll } from '../../test/projector/support/history.ts';
import { quantile, ratio, round } from '../report/stats.ts';

export interface ProjectionScaleSettings {
  /** Catalogue sizes (watches). */
  watches: number[];
  /** Price changes projected per size. */
  priceChanges: number;
  /** Catalogue size and price changes of the freshness run. */
  freshness: { watches: number; changes: number };
}

export interface PriceChangeRate { watches: number; collections: number; price_changes_per_s: number }
export interface ProjectionScaleFigures {
  price_changes: PriceChangeRate[];
  /** Rate at the smallest size over the rate at the largest: 1 is flat, the goal is at most 2. */
  slowdown_largest_vs_smallest: number;
  freshness_during_rebuild: { watches: number; changes: number; rebuilds: number; p50_ms: number; p99_ms: number; max_ms: number };
}

const PER_COLLECTION = 100;
const LIVE_BATCH = 100;
const logger = pino({ level: 'silent' });
const reference = (index: number) => `PS-${String(index).padStart(6, '0')}`;
const priceOf = (random: () => number) => between(random, 500_000, 5_000_000);

/** A catalogue of `size` watches in collections of 100, appended to a fresh in-memory event store. */
async function catalogue(size: number, random: () => number): Promise<{ eventStore: EventStore; prices: number[] }> {
  const eventStore = openSqliteEventStore(':memory:');
  const events: NewEvent[] = [];
  const prices: number[] = [];
  for (let c = 0; c < Math.ceil(size / PER_COLLECTION); c += 1) events.push(collectionDefined(`c${c}`));
  for (let i = 0; i < size; i += 1) {
    prices.push(priceOf(random));
    events.push(watchPublished(reference(i), `c${Math.floor(i / PER_COLLECTION)}`, { price_cents: prices[i]! }));
  }
  await appendAll(eventStore, events);
  return { eventStore, prices };
}

function priceChanges(count: number, prices: number[], random: () => number): NewEvent[] {
  return Array.from({ length: count }, () => {
    const index = between(random, 0, prices.length - 1);
    const next = priceOf(random);
    const event = watchPriceChanged(reference(index), next, prices[index]!);
    prices[index] = next;
    return event;
  });
}

async function priceChangeRate(size: number, count: number): Promise<PriceChangeRate> {
  const random = seededRandom(size);
  const { eventStore, prices } = await catalogue(size, random);
  const readStore = createMemoryReadStore();
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  try {
    await rebuild({ eventStore, readStore });
    await appendAll(eventStore, priceChanges(count, prices, random));
    const projector = createProjector({ eventStore, readStore, queue, logger, batchSize: LIVE_BATCH });
    const started = performance.now();
    await projector.catchUp();
    const seconds = (performance.now() - started) / 1000;
    await projector.stop();
    return { watches: size, collections: Math.ceil(size / PER_COLLECTION), price_changes_per_s: round(count / seconds) };
  } finally {
    await queue.close();
    await readStore.close();
    await eventStore.close();
  }
}

async function freshnessDuringRebuild(size: number, changes: number): Promise<ProjectionScaleFigures['freshness_during_rebuild']> {
  const random = seededRandom(size + 1);
  const { eventStore, prices } = await catalogue(size, random);
  const readStore = createMemoryReadStore();
  await rebuild({ eventStore, readStore });
  const queues = [createInlineJobQueue({ attempts: 1, backoffMs: 1 }), createInlineJobQueue({ attempts: 1, backoffMs: 1 })];
  const workers: Projector[] = queues.map((queue) => createProjector({ eventStore, readStore, queue, logger, batchSize: LIVE_BATCH, pollIntervalMs: 200 }));
  for (const worker of workers) worker.start();
  const commands = createCommandService(eventStore, { actor: 'bench' });
  let rebuilding = true;
  let rebuilds = 0;
  const rebuildsLoop = (async () => {
    while (rebuilding) {
      await rebuild({ eventStore, readStore });
      rebuilds += 1;
    }
  })();
  const lags: number[] = [];
  try {
    for (let n = 0; n < changes; n += 1) {
      const index = between(random, 0, prices.length - 1);
      const price = priceOf(random);
      if (price === prices[index]) continue;
      await commands.changeWatchPrice(reference(index), price);
      prices[index] = price;
      const acknowledged = performance.now();
      for (;;) {
        const doc = await readStore.get<WatchDoc>('watches', `en:${reference(index)}`);
        if (doc?.price_cents === price) break;
        await sleep(1);
      }
      lags.push(performance.now() - acknowledged);
    }
  } finally {
    rebuilding = false;
    await rebuildsLoop;
    for (const worker of workers) await worker.stop();
    for (const queue of queues) await queue.close();
    await readStore.close();
    await eventStore.close();
  }
  return {
    watches: size, changes: lags.length, rebuilds,
    p50_ms: round(quantile(lags, 0.5), 1), p99_ms: round(quantile(lags, 0.99), 1), max_ms: round(Math.max(...lags), 1),
  };
}

export async function benchProjectionScale(settings: ProjectionScaleSettings): Promise<ProjectionScaleFigures> {
  const rates: PriceChangeRate[] = [];
  for (const size of settings.watches) rates.push(await priceChangeRate(size, settings.priceChanges));
  const first = rates[0];
  const last = rates.at(-1);
  return {
    price_changes: rates,
    slowdown_largest_vs_smallest: first && last ? ratio(first.price_changes_per_s, last.price_changes_per_s) : Number.NaN,
    freshness_during_rebuild: await freshnessDuringRebuild(settings.freshness.watches, settings.freshness.changes),
  };
}

export function projectionScaleTable(figures: ProjectionScaleFigures): string {
  const rows = figures.price_changes.map((r) => `  ${String(r.watches).padStart(7)} watches (${r.collections} collections): ${r.price_changes_per_s} price changes/s`);
  const f = figures.freshness_during_rebuild;
  return [
    '\nprojections at scale (embedded; price changes in batches of 100)',
    ...rows,
    `  largest vs smallest: ${figures.slowdown_largest_vs_smallest}x slower (goal <= 2)`,
    `  freshness with 2 workers during ${f.rebuilds} rebuilds (${f.watches} watches, ${f.changes} changes): p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms, max ${f.max_ms} ms (goal p99 < 250)`,
  ].join('\n');
}
