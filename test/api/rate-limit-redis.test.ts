/**
 * The rate limits with koa-ratelimit's Redis driver (docs/api.md "Rate limits"): every behaviour of the memory
 * driver, one budget shared by every API process, and no wait and no 5xx while Redis cannot answer, back to the
 * shared windows once it does.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { connectRateLimitRedis } from '../../read-api/rate-limit/rate-limit-redis.ts';
import { createRateLimits } from '../../read-api/rate-limit/rate-limits.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { rateLimitBehaviour, serveWithLimits, silentLogger, statuses, testConfig, type Served } from './rate-limit-harness.ts';

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(20);
  }
}

describe('rate limits shared through Redis (koa-ratelimit Redis driver)', () => {
  let server: TestRedis;
  let redis: Redis;
  const clients: Redis[] = [];
  const client = async () => {
    const made = connectRateLimitRedis(server.url, silentLogger);
    clients.push(made);
    await until(() => made.status === 'ready', 5_000);
    return made;
  };

  before(async () => {
    server = await startTestRedis();
    // The counting behaviours get a client without the service's 100 ms command timeout: on a loaded machine a
    // reply that slow is not rare, and would send a request to the memory windows and miscount it. What that
    // timeout does is the subject of the outage tests below, on the service's own client.
    redis = new Redis(server.url, { maxRetriesPerRequest: 0 });
    clients.push(redis);
    await until(() => redis.status === 'ready', 5_000);
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await server.stop();
  });

  rateLimitBehaviour(() => (deps) => createRateLimits({ ...deps, redis }), async () => { await redis.flushall(); });

  describe('across processes and outages', () => {
    const open: Served[] = [];
    afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });
    const serve = async (connection: Redis, env: Record<string, string> = {}) => {
      const served = await serveWithLimits(createRateLimits({ config: testConfig(env), logger: silentLogger, redis: connection }));
      open.push(served);
      return served;
    };

    it('asks Redis once per verification for its three limits, and counts each limit as it would alone (issue 22)', async () => {
      await redis.flushall();
      const served = await serve(redis, { VERIFY_RATE_LIMIT_PER_MINUTE: '2' });
      const scripts = async () => {
        const stats = await redis.info('commandstats');
        return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
      };
      const before = await scripts();
      expect(await statuses(served, 3, '/api/public/verify/AB-1234')).to.deep.equal([200, 200, 429]);
      // One script call per request (a first call may be retried as EVAL after NOSCRIPT: counted once more at most).
      expect((await scripts()) - before).to.be.within(3, 4);
      // The refused verification counted against the general and the per-IP verification limit, not the global one.
      expect(await redis.zcard('rl:general:127.0.0.1')).to.equal(3);
      expect(await redis.zcard('rl:verify:127.0.0.1')).to.equal(2);
      expect(await redis.zcard('rl:verify-global:all')).to.equal(2);
    });

    it('refuses the 61st request of a client spread over two API processes, in both', async () => {
      await redis.flushall();
      const a = await serve(redis);
      const b = await serve(await client());
      expect(a.limits.mode()).to.equal('redis');
      expect(await statuses(a, 30, '/api/public/status')).to.deep.equal(Array(30).fill(200));
      expect(await statuses(b, 30, '/api/public/status')).to.deep.equal(Array(30).fill(200));
      const refused = await a.get('/api/public/status');
      expect(refused.status).to.equal(429);
      expect(await refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      expect((await b.get('/api/public/status')).status).to.equal(429);
      expect(await redis.keys('rl:general:*')).to.deep.equal(['rl:general:127.0.0.1']);
    });

    it('decides in memory at once while Redis is down (status degraded, no 5xx), and shares limits again once it is back', async () => {
      await redis.flushall();
      const connection = await client();
      const served = await serve(connection, { RATE_LIMIT_PER_MINUTE: '5' });
      expect(await statuses(served, 2, '/api/public/status')).to.deep.equal([200, 200]);

      await server.stop(true);
      // The memory windows count from the outage on: five answers, then refusals. That none waits on Redis is
      // proven without a stopwatch in rate-limit-clock.test.ts (a Redis that is down is not asked at all).
      expect(await statuses(served, 7, '/api/public/status')).to.deep.equal([200, 200, 200, 200, 200, 429, 429]);
      expect(served.limits.mode()).to.equal('degraded');

      await server.start();
      await until(() => connection.status === 'ready', 5_000);
      expect(served.limits.mode(), 'connected again, no request decided by Redis yet').to.equal('degraded');
      // A failed decision sends requests to memory for a second before Redis is asked again.
      await sleep(1_000);
      expect((await served.get('/api/public/status')).status).to.equal(200);
      expect(served.limits.mode()).to.equal('redis');
      // The restarted Redis kept nothing: that request is the first of a new shared window, seen by another process.
      expect(await redis.keys('rl:general:*')).to.deep.equal(['rl:general:127.0.0.1']);
      const elsewhere = await serve(await client(), { RATE_LIMIT_PER_MINUTE: '5' });
      expect(await statuses(elsewhere, 5, '/api/public/status')).to.deep.equal([200, 200, 200, 200, 429]);
    });

    it('decides in memory when Redis is connected but does not answer, then without asking it again', async () => {
      await redis.flushall();
      const connection = await client();
      const served = await serve(connection, { RATE_LIMIT_PER_MINUTE: '3' });
      server.pause();
      try {
        // The first request is answered once the client's command timeout gives up on Redis (without it, never:
        // the test would time out); the next ones go straight to memory for a second (rate-limit-clock.test.ts
        // proves that on a fake clock, where a stopwatch here would only measure the machine's load).
        expect(await statuses(served, 5, '/api/public/status')).to.deep.equal([200, 200, 200, 429, 429]);
        expect(served.limits.mode()).to.equal('degraded');
      } finally {
        server.resume();
      }
      await sleep(1_000);
      expect((await served.get('/api/public/status')).status).to.equal(200);
      expect(served.limits.mode(), 'Redis decided again').to.equal('redis');
    });
  });
});
