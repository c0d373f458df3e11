import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
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

describe('rate limits shared through Redis', () => {
  let server: TestRedis;
  let redis: Redis;
  const clients: Redis[] = [];
  const client = () => {
    const made = connectRateLimitRedis(server.url, silentLogger);
    clients.push(made);
    return made;
  };

  before(async () => {
    server = await startTestRedis();
    redis = client();
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
    const serve = async (env: Record<string, string>, connection: Redis) => {
      const served = await serveWithLimits(createRateLimits({ config: testConfig(env), logger: silentLogger, redis: connection }));
      open.push(served);
      return served;
    };

    it('shares one budget between two API processes', async () => {
      await redis.flushall();
      const other = client();
      await until(() => other.status === 'ready', 5_000);
      const a = await serve({ RATE_LIMIT_PER_MINUTE: '3' }, redis);
      const b = await serve({ RATE_LIMIT_PER_MINUTE: '3' }, other);
      expect(a.limits.mode()).to.equal('redis');
      expect(await statuses(a, 2, '/api/public/status')).to.deep.equal([200, 200]);
      // A hit let through far from the limit reaches Redis within a few milliseconds, in the next batch.
      await sleep(50);
      expect(await statuses(b, 2, '/api/public/status')).to.deep.equal([200, 429]);
      expect(await redis.keys('rl:general:*')).to.have.length(1);
    });

    it('keeps answering at once from memory while Redis is down, and shares limits again once it is back', async () => {
      await redis.flushall();
      const connection = client();
      await until(() => connection.status === 'ready', 5_000);
      const served = await serve({ RATE_LIMIT_PER_MINUTE: '5' }, connection);
      expect(await statuses(served, 1, '/api/public/status')).to.deep.equal([200]);

      await server.stop(true);
      const timings: number[] = [];
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const started = performance.now();
        const response = await served.get('/api/public/status');
        await response.arrayBuffer();
        timings.push(performance.now() - started);
        codes.push(response.status);
      }
      expect(Math.max(...timings), `timings ${timings.map(Math.round).join(',')}`).to.be.below(150);
      // Counting carries on in this process from the one hit already made: a Redis outage is no fresh budget.
      expect(codes).to.deep.equal([200, 200, 200, 200, 429, 429]);
      expect(served.limits.mode()).to.equal('degraded');

      await server.start();
      await until(() => connection.status === 'ready', 5_000);
      await sleep(1_050); // the limiter tries Redis again at most once a second
      expect(served.limits.mode()).to.equal('redis');
      // The restarted Redis kept nothing; the four hits let through meanwhile are sent to it, so another process
      // sees this client's window as this one does.
      let shared = 0;
      for (const deadline = Date.now() + 2_000; shared < 4 && Date.now() < deadline; await sleep(20)) {
        const [key] = await redis.keys('rl:general:*');
        shared = key === undefined ? 0 : Number(await redis.get(key));
      }
      expect(shared).to.equal(4);
      const other = client();
      await until(() => other.status === 'ready', 5_000);
      const elsewhere = await serve({ RATE_LIMIT_PER_MINUTE: '5' }, other);
      expect(await statuses(elsewhere, 2, '/api/public/status')).to.deep.equal([200, 429]);
      expect((await served.get('/api/public/status')).status).to.equal(429);
    });
  });
});
