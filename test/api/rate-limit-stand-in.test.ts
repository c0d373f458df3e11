/**
 * The rate limits' behaviours of docs/api.md "Rate limits" (the same suite the memory and Redis drivers answer to)
 * with the Redis driver in front of an in-process stand-in for its commands, so the path through Redis (its
 * refusals' `Retry-After` and reset, the verification figures kept past the global budget, one round trip per
 * request) runs under the mutation tester, which leaves the real-Redis suite out. And what only that path has: a
 * verification's three limits go in one command, any other request's one limit alone, and a signed request counts
 * whatever its path ("Signed answers": signing is work).
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { createRateLimits } from '../../read-api/rate-limit/rate-limits.ts';
import { rateLimitBehaviour, servedEachTest, statuses } from './rate-limit-harness.ts';
import { redisStandIn } from './support/redis-stand-in.ts';

describe('rate limits through the Redis driver, against an in-process stand-in for Redis', () => {
  rateLimitBehaviour(() => (deps) => createRateLimits({ ...deps, redis: redisStandIn().client }));

  describe('what the path through Redis adds', () => {
    const serve = servedEachTest();

    it('sends a verification\'s three limits in one command, and any other request\'s general limit alone', async () => {
      const redis = redisStandIn();
      const served = await serve({}, redis.client);
      expect(await statuses(served, 1, '/api/public/verify/AB-1234')).to.deep.equal([200]);
      expect(await statuses(served, 1, '/api/public/status')).to.deep.equal([200]);
      // A POST to the verification path is no verification: its general limit goes alone, no verification is counted.
      expect((await fetch(`${served.base}/api/public/verify/AB-1234`, { method: 'POST' })).status).to.equal(404);
      expect(redis.trips).to.deep.equal([
        ['rl:general:127.0.0.1', 'rl:verify:127.0.0.1', 'rl:verify-global:all'],
        ['rl:general:127.0.0.1'],
        ['rl:general:127.0.0.1'],
      ]);
      expect(served.limits.mode()).to.equal('redis');
    });

    it('counts a request asking for a signature against the general limit whatever its path', async () => {
      const redis = redisStandIn();
      const served = await serve({ RATE_LIMIT_PER_MINUTE: '2' }, redis.client);
      expect(await statuses(served, 3, '/llms.txt', () => ({ 'accept-signature': 'sig1=("@status")' }))).to.deep.equal([200, 200, 429]);
      expect(await statuses(served, 2, '/llms.txt')).to.deep.equal([200, 200]);
      // Unsigned, the file counts against the files limit (issue 42).
      expect(redis.trips).to.deep.equal([
        ['rl:general:127.0.0.1'], ['rl:general:127.0.0.1'], ['rl:general:127.0.0.1'], ['rl:files:127.0.0.1'], ['rl:files:127.0.0.1'],
      ]);
    });

    it('keeps a passed answer\'s own type, and says Retry-After 1 in the window\'s last second, where the driver would say 0', async () => {
      mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });
      const redis = redisStandIn();
      const served = await serve({ RATE_LIMIT_PER_MINUTE: '1' }, redis.client);
      const signed = await served.get('/llms.txt', { 'accept-signature': 'sig1=("@status")' });
      expect(signed.status).to.equal(200);
      expect(signed.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      // The window opened at 1_700_000_000 s and frees up 60 s later; half a second is left of it.
      mock.timers.tick(59_500);
      const refused = await served.get('/api/public/status');
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.headers.get('x-ratelimit-reset')).to.equal('1700000060');
      expect(refused.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    });
  });
});
