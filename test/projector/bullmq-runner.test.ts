import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered } from '../fixtures/events.ts';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createProjector } from '../../projector/runner.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

describe('projector on BullMQ (real Redis)', function () {
  this.timeout(30_000);
  let redis: TestRedis;

  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis.stop());

  it('catches every projection up through queue jobs alone, then follows new appends', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const readStore = createMemoryReadStore();
    const queue = createBullMqJobQueue({
      redisUrl: redis.url, queueName: `projector-test-${Date.now()}`, policy: { attempts: 2, backoffMs: 20 }, concurrency: 4,
    });
    const projector = createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), batchSize: 5, pollIntervalMs: 200 });
    try {
      const head = await appendAll(eventStore, catalogueHistory(12));
      projector.start();
      await projector.waitFor(head, 15_000);
      const later = await appendAll(eventStore, [serialRegistered('BULL-0001', { reference: 'TMP-1', collection: 'tempo' })]);
      await projector.waitFor(later, 15_000);
      const fresh = createMemoryReadStore();
      await rebuild({ eventStore, readStore: fresh });
      expect(await snapshot(readStore)).to.deep.equal(await snapshot(fresh));
      expect(projector.status().every((s) => s.status === 'running' && s.position === later)).to.equal(true);
    } finally {
      await projector.stop();
      await queue.close();
      await eventStore.close();
    }
  });
});
