/**
 * Freshness tickets from Redis (shared/adapters/redis-freshness-tickets.ts), through a real redis-server: a replica's
 * ticket is above every ticket read before it was taken, a projector reads the latest taken from another connection,
 * both fail fast while Redis is away (so data is judged older, never fresher), and a Redis that comes back empty
 * starts a new epoch, whose numbers are never compared with the old one's.
 */
import { expect } from 'chai';
import { redisFreshnessTickets } from '../../../shared/adapters/redis-freshness-tickets.ts';
import type { FreshnessTicket } from '../../../shared/ports/freshness-tickets.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { until } from '../../support/until.ts';

describe('freshness tickets over Redis', function () {
  this.timeout(20_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis.stop());

  it('gives rising tickets of one epoch to every replica, the latest to a projector, and a new epoch after an empty restart', async () => {
    const replicas = [redisFreshnessTickets(redis.url, () => undefined), redisFreshnessTickets(redis.url, () => undefined)];
    const projector = redisFreshnessTickets(redis.url, () => undefined);
    try {
      // A connection fails fast until it is ready (a `client` connection queues nothing).
      for (const replica of replicas) await until('connected', () => replica.take().then(() => true, () => false));
      await until('the projector connected', () => projector.latest().then(() => true, () => false));
      const first = await replicas[0]!.take();
      const second = await replicas[1]!.take();
      expect(second.epoch).to.equal(first.epoch);
      expect(second.n).to.equal(first.n + 1);
      expect(await projector.latest()).to.deep.equal(second);

      await redis.stop();
      const failures = await Promise.allSettled([replicas[0]!.take(), projector.latest()]);
      expect(failures.map((failure) => failure.status), 'while Redis is away').to.deep.equal(['rejected', 'rejected']);

      await redis.start();
      let after: FreshnessTicket | undefined;
      await until('a ticket after the restart', async () => (after = await replicas[0]!.take().catch(() => undefined)) !== undefined);
      expect(after!.n).to.equal(1);
      expect(after!.epoch, 'a Redis back empty: a new epoch').not.to.equal(first.epoch);
      await until('the projector reads the new epoch', async () => (await projector.latest().catch(() => undefined))?.epoch === after!.epoch);
    } finally {
      await Promise.all([...replicas, projector].map((tickets) => tickets.close()));
    }
  });
});
