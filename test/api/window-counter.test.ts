/**
 * The window counter behind the rate limits (read-api/rate-limit/window-counter.ts), against a private Redis:
 * refusals stay exact across processes, hits far from the limit cost no round trip each, and nothing counted is
 * lost when the counter closes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { connectRateLimitRedis } from '../../read-api/rate-limit/rate-limit-redis.ts';
import { RedisWindows } from '../../read-api/rate-limit/redis-windows.ts';
import { WindowCounter, type WindowCount, type WindowLimit } from '../../read-api/rate-limit/window-counter.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { silentLogger } from './rate-limit-harness.ts';

let tests = 0;
/** A namespace of its own per test, so no test starts in another's window. */
const limitOf = (max: number): WindowLimit => ({ namespace: `test${(tests += 1)}`, max, durationMs: 60_000 });

/** A RedisWindows that counts its round trips. */
class CountedWindows extends RedisWindows {
  roundTrips = 0;
  override send(...args: Parameters<RedisWindows['send']>) {
    this.roundTrips += 1;
    return super.send(...args);
  }
}

describe('window counter shared through Redis', () => {
  let server: TestRedis;
  const clients: Redis[] = [];
  const counters: WindowCounter[] = [];
  const connect = async () => {
    const client = connectRateLimitRedis(server.url, silentLogger);
    clients.push(client);
    while (client.status !== 'ready') await sleep(10);
    return client;
  };
  const counter = async () => {
    const windows = new CountedWindows(await connect());
    const made = new WindowCounter(windows, silentLogger);
    counters.push(made);
    return { counter: made, windows };
  };
  const hits = async (on: WindowCounter, limit: WindowLimit, n: number) => {
    const counts: WindowCount[] = [];
    for (let i = 0; i < n; i++) counts.push(await on.count(limit, 'client'));
    return counts;
  };

  before(async () => { server = await startTestRedis(); });
  afterEach(async () => {
    await Promise.all(counters.splice(0).map((c) => c.close()));
    for (const client of clients.splice(0)) client.disconnect();
  });
  after(async () => { await server.stop(); });

  it('lets exactly the budget through across two processes, the second seeing the first\'s hits', async () => {
    const a = await counter();
    const b = await counter();
    const limit = limitOf(20);
    const first = await hits(a.counter, limit, 15);
    await sleep(30);
    const second = await hits(b.counter, limit, 10);
    expect(first.every((c) => !c.limited)).to.equal(true);
    expect(second.map((c) => c.limited)).to.deep.equal([...Array(5).fill(false), ...Array(5).fill(true)]);
    expect(second[0]!.remaining).to.equal(4);
  });

  it('never lets more than the budget through when two processes race for its end', async () => {
    const a = await counter();
    const b = await counter();
    const limit = limitOf(12);
    const racing = await Promise.all([...Array(15)].flatMap(() => [a.counter.count(limit, 'client'), b.counter.count(limit, 'client')]));
    expect(racing.filter((c) => !c.limited)).to.have.length(12);
  });

  it('sends hits far from the limit in batches, and every one of them reaches Redis', async () => {
    const { counter: busy, windows } = await counter();
    const limit = limitOf(1_000_000);
    for (let i = 0; i < 2_000; i++) {
      const count = busy.count(limit, 'client');
      if (count instanceof Promise) await count;
      if (i % 200 === 0) await sleep(6);
    }
    expect(windows.roundTrips, 'round trips for 2,000 hits').to.be.below(40);
    await busy.close();
    expect(Number(await windows.client.get(`${limit.namespace}:client`))).to.equal(2_000);
  });

  it('answers a hit it can decide without waiting for Redis', async () => {
    const { counter: busy } = await counter();
    const limit = limitOf(1_000);
    await busy.count(limit, 'client');
    expect(busy.count(limit, 'client')).not.to.be.instanceOf(Promise);
  });
});
