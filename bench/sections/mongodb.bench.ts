/**
 * The scale mode's figures, run when MONGODB_URL is set (FerretDB with `npm run test:mongo`'s script, or a real
 * MongoDB): projection throughput into MongoDB, freshness through BullMQ and the MongoDB protocol (a command's
 * acknowledgement to its document read back by another client), and rebuild throughput into MongoDB beside the
 * bare read-and-decode loop of the embedded store. The history is small: FerretDB 1.24 pays a scan of the
 * collection for every upsert that inserts, so a large one would measure only that.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRegistered } from '../../test/fixtures/events.ts';
import { appendAll, catalogueHistory } from '../../test/projector/support/history.ts';
import { quantile, ratio, round } from '../report/stats.ts';

export interface MongoSettings { serials: number; freshness: number }

export interface MongoFigures {
  engine: string;
  events: number;
  projection_events_per_s: number;
  freshness_bullmq_mongodb: { p50_ms: number; p99_ms: number; max_ms: number; commands: number };
  rebuild_events_per_s: number;
  /** False when the rebuild failed before its switch: the rate is then up to the switch. */
  rebuild_switched: boolean;
  bare_read_decode_events_per_s: number;
  rebuild_vs_bare: number;
}

const logger = pino({ level: 'silent' });

async function engineOf(url: string): Promise<string> {
  const client = await MongoClient.connect(url);
  try {
    const info = await client.db('admin').command({ buildInfo: 1 });
    return typeof info['ferretdbVersion'] === 'string' ? `FerretDB ${info['ferretdbVersion']}` : `MongoDB ${String(info['version'])}`;
  } finally {
    await client.close();
  }
}

async function dropDatabase(url: string, name: string): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

/** Events per second of the plain loop reading and decoding the whole history: what no projection can beat. */
async function bareRate(eventStore: EventStore): Promise<number> {
  const started = performance.now();
  let after = 0;
  let events = 0;
  for (;;) {
    const batch = await eventStore.readAll({ after, limit: 5_000 });
    const last = batch.at(-1);
    if (!last) break;
    after = last.position;
    events += batch.length;
  }
  return events / ((performance.now() - started) / 1000);
}

async function freshness(url: string, redisUrl: string, eventStore: EventStore, commands: number): Promise<number[]> {
  const database = `bench_fresh_${randomUUID().slice(0, 8)}`;
  const readStore = await createMongoReadStore(url, database);
  const reader = await createMongoReadStore(url, database);
  const queue = createBullMqJobQueue({ redisUrl, queueName: `bench-mongo-${randomUUID()}`, policy: { attempts: 3, backoffMs: 50 }, concurrency: 4 });
  const projector = createProjector({ eventStore, readStore, queue, logger });
  const lags: number[] = [];
  try {
    await projector.catchUp();
    projector.start();
    for (let i = 0; i < commands; i++) {
      const serial = `FRESH-${String(i).padStart(6, '0')}`;
      await appendAll(eventStore, [serialRegistered(serial, { reference: 'TMP-1', collection: 'tempo' })]);
      const acknowledged = performance.now();
      while ((await reader.get('serials', serial)) === null) {
        if (performance.now() - acknowledged > 5_000) break;
      }
      lags.push(performance.now() - acknowledged);
    }
  } finally {
    await projector.stop();
    await queue.close();
    await reader.close();
    await readStore.close();
    await dropDatabase(url, database);
  }
  return lags;
}

export async function benchMongo(settings: MongoSettings, url: string, redisUrl: string): Promise<MongoFigures> {
  const eventStore = openSqliteEventStore(':memory:');
  const events = await appendAll(eventStore, catalogueHistory(settings.serials));
  const database = `bench_mongo_${randomUUID().slice(0, 8)}`;
  const readStore = await createMongoReadStore(url, database);
  try {
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    let started = performance.now();
    await createProjector({ eventStore, readStore, queue, logger }).catchUp();
    const projectionRate = events / ((performance.now() - started) / 1000);
    await queue.close();

    let builtAt = 0;
    let switched = true;
    started = performance.now();
    await rebuild({ eventStore, readStore, beforeSwitch: () => { builtAt = performance.now(); } }).catch(() => { switched = false; });
    const rebuildRate = events / (((switched ? performance.now() : builtAt) - started) / 1000);
    const bare = await bareRate(eventStore);

    const lags = (await freshness(url, redisUrl, eventStore, settings.freshness)).sort((a, b) => a - b);
    return {
      engine: await engineOf(url),
      events,
      projection_events_per_s: round(projectionRate),
      freshness_bullmq_mongodb: {
        p50_ms: round(quantile(lags, 0.5), 1), p99_ms: round(quantile(lags, 0.99), 1), max_ms: round(lags.at(-1) ?? 0, 1), commands: lags.length,
      },
      rebuild_events_per_s: round(rebuildRate),
      rebuild_switched: switched,
      bare_read_decode_events_per_s: round(bare),
      rebuild_vs_bare: ratio(rebuildRate, bare),
    };
  } finally {
    await readStore.close();
    await eventStore.close();
    await dropDatabase(url, database);
  }
}
