/**
 * Freshness: the time from a command's acknowledgement to its effect being visible through the public API, with
 * the whole embedded service in one process (SQLite store, projector, in-memory read store, read API), its jobs
 * run in process or through BullMQ on a real Redis. Two kinds of change alternate: a serial registration seen by
 * the verification operation (never cached) and a price change seen by the detail operation (cached while the
 * watches projection stays put), so the figures show both the projection's lag and the read-model clock's.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { scratchDir } from '../fixtures/bench-dir.ts';
import { copyDemoStore, demoWatches } from '../fixtures/demo-store.ts';
import { startOurServer } from '../http/our-server.ts';
import { quantile, round } from '../report/stats.ts';

/** A change not visible after this long counts as this long (and as a miss). */
const GIVE_UP_MS = 5_000;
const RETRY_POLICY = { attempts: 5, backoffMs: 50 };

export interface LagFigures { p50_ms: number; p99_ms: number; max_ms: number; misses: number }
export interface FreshnessFigures {
  commands: number;
  embedded: { verify: LagFigures; detail: LagFigures; all: LagFigures };
  bullmq: { verify: LagFigures; detail: LagFigures; all: LagFigures };
}

export async function benchFreshness(commands: number, redisUrl: string): Promise<FreshnessFigures> {
  return {
    commands,
    embedded: await measureLags(commands, createInlineJobQueue(RETRY_POLICY)),
    bullmq: await measureLags(commands, createBullMqJobQueue({ redisUrl, queueName: `bench-${randomUUID()}`, policy: RETRY_POLICY })),
  };
}

async function measureLags(commands: number, queue: JobQueue): Promise<FreshnessFigures['embedded']> {
  const scratch = scratchDir('freshness');
  const file = join(scratch.dir, 'events.sqlite3');
  await copyDemoStore(file);
  const logger = pino({ level: 'warn', name: 'bench-freshness' }, pino.destination(2));
  const eventStore = openSqliteEventStore(file);
  const readStore = createMemoryReadStore();
  await rebuild({ eventStore, readStore });
  const projector = createProjector({ eventStore, readStore, queue, logger });
  projector.start();
  const api = await startOurServer(readStore);
  const service = createCommandService(eventStore, { actor: 'bench' });
  const watches = demoWatches();
  const lags = { verify: [] as number[], detail: [] as number[] };
  const misses = { verify: 0, detail: 0 };
  const run = randomUUID().slice(0, 8).toUpperCase();
  try {
    for (let index = 0; index < commands; index += 1) {
      const watch = watches[index % watches.length]!;
      if (index % 2 === 0) {
        const serial = `FR-${run}-${index}`;
        await service.registerSerial(serial, watch.reference, 2024);
        const lag = await lagUntil(`${api.url}/api/public/verify/${serial}`, (body) => (body as { verification_status: string }).verification_status === 'AUTHENTIC');
        lags.verify.push(lag);
        if (lag >= GIVE_UP_MS) misses.verify += 1;
      } else {
        const priceCents = 100_000 + index * 100;
        await service.changeWatchPrice(watch.reference, priceCents);
        const lag = await lagUntil(`${api.url}/api/public/catalogue/${watch.reference}`, (body) => (body as { price_eur: number }).price_eur === priceCents / 100);
        lags.detail.push(lag);
        if (lag >= GIVE_UP_MS) misses.detail += 1;
      }
    }
  } finally {
    await api.close();
    await projector.stop();
    await queue.close();
    await eventStore.close();
    await readStore.close();
    scratch.remove();
  }
  return {
    verify: figures(lags.verify, misses.verify),
    detail: figures(lags.detail, misses.detail),
    all: figures([...lags.verify, ...lags.detail], misses.verify + misses.detail),
  };
}

/** Milliseconds from now until `url` answers a body for which `visible` holds, asking again every millisecond. */
async function lagUntil(url: string, visible: (body: unknown) => boolean): Promise<number> {
  const started = performance.now();
  for (;;) {
    const response = await fetch(url);
    const body: unknown = response.status === 200 ? await response.json() : await response.text();
    const elapsed = performance.now() - started;
    if (response.status === 200 && visible(body)) return elapsed;
    if (elapsed >= GIVE_UP_MS) return GIVE_UP_MS;
    await sleep(1);
  }
}

function figures(lags: number[], misses: number): LagFigures {
  return {
    p50_ms: round(quantile(lags, 0.5), 1), p99_ms: round(quantile(lags, 0.99), 1), max_ms: round(Math.max(...lags), 1), misses,
  };
}
