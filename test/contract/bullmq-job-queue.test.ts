/** The JobQueue contract against BullMQ on a private redis-server (always available on this machine). */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createBullMqJobQueue } from '../../shared/adapters/bullmq-job-queue.ts';
import { createRedisClient } from '../../shared/adapters/redis-connection.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { eventually, jobQueueContract } from './job-queue.contract.ts';

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

describe('Redis connections through an outage', function () {
  let redis: TestRedis;
  beforeEach(async function () {
    redis = await startTestRedis();
  });
  afterEach(async function () {
    await redis?.stop();
  });

  it('a plain client fails fast while Redis is down and works again once it is back', async function () {
    const client = createRedisClient(redis.url, 'client');
    try {
      await once(client, 'ready');
      expect(await client.ping()).to.equal('PONG');
      await redis.stop(true);
      const started = Date.now();
      const failure = await client.get('key').then(() => null, (error: unknown) => error);
      expect(failure).to.be.instanceOf(Error);
      expect(Date.now() - started).to.be.below(3_000);
      await redis.start();
      await eventually(async () => (await client.ping().catch(() => null)) === 'PONG', 'the client reconnected');
    } finally {
      client.disconnect();
    }
  });

  it('a job added while Redis is down is run once Redis is back; the queue says whether Redis is reachable meanwhile', async function () {
    const queue = createBullMqJobQueue({ redisUrl: redis.url, queueName: `outage-${randomUUID()}`, policy: { attempts: 2, backoffMs: 10 } });
    try {
      const ran: string[] = [];
      queue.process(async (name) => {
        ran.push(name);
      });
      await queue.add('warm-up', 'warm-up');
      await eventually(() => ran.length === 1, 'the first job ran');
      expect(queue.reachable(), 'connected').to.equal(true);
      await redis.stop(true);
      // What the projector's health reports (issue 40).
      await eventually(() => !queue.reachable(), 'the queue says Redis is unreachable');
      const added = queue.add('watches', 'watches');
      await redis.start();
      await eventually(() => queue.reachable(), 'the queue says Redis is reachable again', 10_000);
      await added;
      await eventually(() => ran.includes('watches'), 'the job added during the outage ran', 10_000);
    } finally {
      await queue.close();
    }
  });
});
