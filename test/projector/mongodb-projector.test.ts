/**
 * The projector and rebuild over MongoDB (a MongoDB leg: runs when MONGODB_URL is set): the documents they leave
 * in MongoDB are those the same history gives in memory, through the in-process queue and through BullMQ.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRegistered, watchPriceChanged } from '../fixtures/events.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { startTestRedis } from '../support/redis-server.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

const logger = pino({ level: 'silent' });

/** What the history gives, computed apart from MongoDB: a rebuild into the in-memory store. */
async function inMemory(eventStore: EventStore) {
  const expected = createMemoryReadStore();
  await rebuild({ eventStore, readStore: expected });
  return snapshot(expected);
}

describeMongo('projector and rebuild over MongoDB', 'the projector and rebuild over MongoDB', function (leg) {
  this.timeout(60_000);
  let eventStore: EventStore;
  let mongo: ReadStore;

  beforeEach(async () => {
    eventStore = openSqliteEventStore(':memory:');
    mongo = await createMongoReadStore(leg.url, leg.database('projector'));
  });
  afterEach(async () => {
    await mongo.close();
    await eventStore.close();
  });

  it('the incremental projector (in-process queue, small batches) leaves in MongoDB the documents the history gives', async () => {
    const head = await appendAll(eventStore, catalogueHistory(12));
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore, readStore: mongo, queue, logger, batchSize: 4 });
    await projector.catchUp();
    await queue.close();
    expect(await snapshot(mongo)).to.deep.equal(await inMemory(eventStore));
    const states = await readProjectionStates(mongo);
    expect(states.map((s) => [s.name, s.position, s.status])).to.deep.equal(
      ['watches', 'collections', 'configurators', 'serials', 'transparency-log'].map((name) => [name, head, 'running']));
  });

  it('the projector on BullMQ (real Redis) catches up through queue jobs alone, then follows new appends', async () => {
    const redis = await startTestRedis();
    const queue = createBullMqJobQueue({
      redisUrl: redis.url, queueName: `projector-mongo-${Date.now()}`, policy: { attempts: 2, backoffMs: 20 }, concurrency: 4,
    });
    const projector = createProjector({ eventStore, readStore: mongo, queue, logger, batchSize: 5, pollIntervalMs: 200 });
    try {
      const head = await appendAll(eventStore, catalogueHistory(12));
      projector.start();
      await projector.waitFor(head, 20_000);
      const later = await appendAll(eventStore, [serialRegistered('BULL-0001', { reference: 'TMP-1', collection: 'tempo' })]);
      await projector.waitFor(later, 20_000);
      expect(await snapshot(mongo)).to.deep.equal(await inMemory(eventStore));
    } finally {
      await projector.stop();
      await queue.close();
      await redis.stop();
    }
  });

  it('a rebuild into MongoDB leaves readers the old model until the switch, then the one the history gives', async function () {
    await appendAll(eventStore, catalogueHistory(5));
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    await createProjector({ eventStore, readStore: mongo, queue, logger }).catchUp();
    await queue.close();
    const before = await snapshot(mongo);
    await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000), serialRegistered('NEW-0001')]);
    let seenDuringRebuild: unknown;
    await rebuild({ eventStore, readStore: mongo, batchSize: 7, beforeSwitch: async () => { seenDuringRebuild = await snapshot(mongo); } });
    expect(seenDuringRebuild).to.deep.equal(before);
    expect(await snapshot(mongo)).to.deep.equal(await inMemory(eventStore));
  });
});
