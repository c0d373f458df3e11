/**
 * The rate limits' arithmetic of time (docs/api.md "Rate limits") on a fake wall clock, with no wait: Retry-After
 * is the seconds left in the window rounded up, never under 1 nor over the window, however the wall clock stands
 * against the limiter's own; and while Redis cannot decide, the limits decide in memory and ask Redis again only a
 * second after it failed. node:test's mock timers move `Date` only; the memory driver of koa-ratelimit keeps its
 * window on a monotonic clock of its own, which is what lets a test set the wall clock anywhere in the window.
 */
import { mock } from 'node:test';
import type { Redis } from 'ioredis';
import { expect } from 'chai';
import { servedEachTest } from './rate-limit-harness.ts';

/** Only the wall clock is faked; timers stay real, so HTTP and Mocha run as usual. */
const fakeWallClock = (at: number) => mock.timers.enable({ apis: ['Date'], now: at });

/**
 * A Redis client as the limits see it, with no server: `status` as given, every command failing at once, and a
 * count of the commands it was asked.
 */
function unreachableRedis(status: string): { client: Redis; asked: () => number } {
  let asked = 0;
  const client: Redis = new Proxy({} as Redis, {
    get(_, property) {
      if (property === 'status') return status;
      if (typeof property !== 'string' || property === 'then') return undefined;
      if (['on', 'once', 'off', 'removeListener'].includes(property)) return () => client;
      return () => {
        asked += 1;
        const failed = Promise.reject(new Error('no Redis here'));
        failed.catch(() => undefined);
        return failed;
      };
    },
  });
  return { client, asked: () => asked };
}

describe('rate limits on a fake wall clock', () => {
  const serve = servedEachTest();

  /** One request that opens a window for a limit of 1; then the wall clock is set `offsetMs` after its start. */
  async function refusedAt(offsetMs: number) {
    const { get } = await serve({ RATE_LIMIT_PER_MINUTE: '1' });
    const before = Date.now();
    expect((await get('/api/public/status')).status).to.equal(200);
    const after = Date.now();
    fakeWallClock(before + offsetMs);
    const refused = await get('/api/public/status');
    expect(refused.status).to.equal(429);
    return { refused, opened: { before, after } };
  }

  it('says the seconds left in the window, rounded up', async () => {
    const { refused, opened } = await refusedAt(20_700);
    // The window opened between `before` and `after` and lasts 60 s; the clock says before + 20.7 s.
    const fewest = Math.ceil(60 - 20.7);
    const most = Math.ceil(60 - 20.7 + (opened.after - opened.before) / 1000);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(fewest, most);
    expect(refused.headers.get('x-ratelimit-reset')).to.match(/^\d+$/);
  });

  it('says at least 1 second while the window lasts, even when the wall clock is past its end', async () => {
    const { refused } = await refusedAt(60_500);
    expect(refused.headers.get('retry-after')).to.equal('1');
  });

  it('never says more than the window, even when the wall clock is behind its start', async () => {
    const { refused } = await refusedAt(-30_000);
    expect(refused.headers.get('retry-after')).to.equal('60');
  });

  it('decides in memory without asking a Redis whose connection is down, and says it is degraded', async () => {
    const redis = unreachableRedis('reconnecting');
    const { limits, get } = await serve({ RATE_LIMIT_PER_MINUTE: '2' }, redis.client);
    const codes = [];
    for (const _ of [1, 2, 3]) codes.push((await get('/api/public/status')).status);
    expect(codes).to.deep.equal([200, 200, 429]);
    expect(redis.asked()).to.equal(0);
    expect(limits.mode()).to.equal('degraded');
  });

  it('after Redis failed to decide, decides in memory for a second, then asks Redis again', async () => {
    fakeWallClock(1_700_000_000_000);
    const redis = unreachableRedis('ready');
    const { limits, get } = await serve({ RATE_LIMIT_PER_MINUTE: '3' }, redis.client);
    expect(limits.mode()).to.equal('redis');
    expect((await get('/api/public/status')).status).to.equal(200);
    const askedOnce = redis.asked();
    expect(askedOnce, 'the first request asks Redis').to.be.above(0);
    expect(limits.mode()).to.equal('degraded');
    mock.timers.tick(999);
    expect((await get('/api/public/status')).status).to.equal(200);
    expect(redis.asked(), 'within the second, Redis is not asked').to.equal(askedOnce);
    mock.timers.tick(1);
    expect((await get('/api/public/status')).status).to.equal(200);
    expect(redis.asked(), 'a second later, Redis is asked again').to.be.above(askedOnce);
    // The memory windows counted all three requests: the fourth is refused.
    expect((await get('/api/public/status')).status).to.equal(429);
  });
});
