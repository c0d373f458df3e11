/**
 * The projectors' word to the API replicas that a read model moved (shared/adapters/redis-read-model-changes.ts),
 * through a real redis-server: heard by every subscriber in another connection, never a failure for the announcer
 * while Redis is away, and heard again once Redis is back (the subscription is made again by itself).
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { redisReadModelChanges } from '../../../shared/adapters/redis-read-model-changes.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { until } from '../../support/until.ts';

const logger = pino({ level: 'silent' });

describe('read-model changes over Redis pub/sub', function () {
  this.timeout(20_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis.stop());

  it('tells every subscribed replica of each announcement, keeps the announcer safe through an outage, and is heard again after it', async () => {
    const projector = redisReadModelChanges(redis.url, logger);
    const replicas = [redisReadModelChanges(redis.url, logger), redisReadModelChanges(redis.url, logger)];
    const heard = [0, 0];
    const stops = replicas.map((replica, i) => replica.subscribe(() => { heard[i]! += 1; }));
    try {
      // The announcer connects at its first word and each subscriber at its subscription: announce until heard.
      await until('both replicas heard a word', () => {
        projector.announce('serials');
        return heard.every((count) => count > 0);
      });
      const before = [...heard];
      projector.announce('watches');
      await until('both heard the next one', () => heard.every((count, i) => count > before[i]!));

      await redis.stop();
      expect(() => projector.announce('serials'), 'an announcement while Redis is away').to.not.throw();
      await redis.start();
      const after = [...heard];
      await until('heard again after the outage', () => {
        projector.announce('collections');
        return heard.every((count, i) => count > after[i]!);
      });

      stops[0]!();
      const unsubscribed = heard[0]!;
      const other = heard[1]!;
      await until('the other still hears', () => {
        projector.announce('serials');
        return heard[1]! > other;
      });
      expect(heard[0], 'a listener ended hears nothing').to.equal(unsubscribed);
    } finally {
      await Promise.all([projector, ...replicas].map((changes) => changes.close()));
    }
  });
});
