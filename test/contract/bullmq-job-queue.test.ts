/** The JobQueue contract against BullMQ on a private redis-server (always available on this machine). */
import { randomUUID } from 'node:crypto';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { jobQueueContract } from './job-queue.contract.ts';

describe('BullMQ job queue', function () {
  let redis: TestRedis;
  before(async function () {
    redis = await startTestRedis();
  });
  after(async function () {
    await redis?.stop();
  });

  jobQueueContract('BullMQ', (policy) =>
    createBullMqJobQueue({ redisUrl: redis.url, queueName: `contract-${randomUUID()}`, policy, concurrency: 4 }));
});
