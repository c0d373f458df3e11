/**
 * The projectors' word to the API replicas that a read model moved (shared/adapters/redis-read-model-changes.ts),
 * through a real redis-server: heard by every subscriber in another connection, never a failure for the announcer
 * while Redis is away, and heard again once Redis is back (the subscription is made again by itself).
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { heardMove, READ_MODEL_CHANNEL, redisReadModelChanges } from '../../../shared/adapters/redis-read-model-changes.ts';
import type { HeardMove, ReadModelMove } from '../../../shared/ports/read-model-changes.ts';
import { startTestRedis, type TestRedis } from '../../support/redis-server.ts';
import { until } from '../../support/until.ts';

const logger = pino({ level: 'silent' });
const move = (projection: string): ReadModelMove => ({ projection, generation: 2, position: 2_418 });

describe('read-model changes over Redis pub/sub', function () {
  this.timeout(20_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis.stop());

  it('says whether announcements are heard: not before a subscription, once subscribed, not while Redis is away, again after; each heard as announced', async () => {
    const projector = redisReadModelChanges(redis.url, logger);
    const replica = redisReadModelChanges(redis.url, logger);
    const names: HeardMove[] = [];
    try {
      expect(replica.hearing(), 'before any subscription').to.equal(false);
      replica.subscribe((projection) => names.push(projection));
      await until('subscribed', () => replica.hearing());
      await until('a word heard', () => {
        projector.announce(move('serials'));
        return names.length > 0;
      });
      expect(names[0], 'heard with its generation and position').to.deep.equal(move('serials'));
      await redis.stop();
      await until('not heard while Redis is away', () => !replica.hearing());
      await redis.start();
      await until('heard again once Redis is back', () => replica.hearing());
      names.length = 0;
      await until('a word heard after the outage', () => {
        projector.announce(move('transparency-log'));
        return names.length > 0;
      });
      expect(new Set(names.map((heard) => heard.projection))).to.deep.equal(new Set(['transparency-log']));
      expect(projector.hearing(), 'a process that only announces hears nothing').to.equal(false);
    } finally {
      await Promise.all([projector.close(), replica.close()]);
    }
  });

  it('tells every subscribed replica of each announcement, keeps the announcer safe through an outage, and is heard again after it', async () => {
    const projector = redisReadModelChanges(redis.url, logger);
    const replicas = [redisReadModelChanges(redis.url, logger), redisReadModelChanges(redis.url, logger)];
    const heard = [0, 0];
    const stops = replicas.map((replica, i) => replica.subscribe(() => { heard[i]! += 1; }));
    try {
      // The announcer connects at its first word and each subscriber at its subscription: announce until heard.
      await until('both replicas heard a word', () => {
        projector.announce(move('serials'));
        return heard.every((count) => count > 0);
      });
      const before = [...heard];
      projector.announce(move('watches'));
      await until('both heard the next one', () => heard.every((count, i) => count > before[i]!));

      await redis.stop();
      expect(() => projector.announce(move('serials')), 'an announcement while Redis is away').to.not.throw();
      await redis.start();
      const after = [...heard];
      await until('heard again after the outage', () => {
        projector.announce(move('collections'));
        return heard.every((count, i) => count > after[i]!);
      });

      stops[0]!();
      const unsubscribed = heard[0]!;
      const other = heard[1]!;
      await until('the other still hears', () => {
        projector.announce(move('serials'));
        return heard[1]! > other;
      });
      expect(heard[0], 'a listener ended hears nothing').to.equal(unsubscribed);
    } finally {
      await Promise.all([projector, ...replicas].map((changes) => changes.close()));
    }
  });

  it('a word of an earlier release (the projection\'s name alone) or not a move is heard as the projection alone: the replica then reads the store', async () => {
    const replica = redisReadModelChanges(redis.url, logger);
    const publisher = new Redis(redis.url);
    const heard: HeardMove[] = [];
    try {
      replica.subscribe((moved) => heard.push(moved));
      await until('subscribed', () => replica.hearing());
      await publisher.publish(READ_MODEL_CHANNEL, 'serials');
      await until('the bare name heard', () => heard.length > 0);
      expect(heard).to.deep.equal([{ projection: 'serials' }]);
    } finally {
      publisher.disconnect();
      await replica.close();
    }
    expect(heardMove(JSON.stringify({ projection: 'watches', generation: 1, position: 7 }))).to.deep.equal({ projection: 'watches', generation: 1, position: 7 });
    expect(heardMove(JSON.stringify({ projection: 'watches', generation: '1', position: 7 })), 'a generation that is no integer').to.deep.equal({ projection: 'watches' });
    expect(heardMove(JSON.stringify({ projection: 'watches', position: 1.5, generation: 1 })), 'a position that is no integer').to.deep.equal({ projection: 'watches' });
    expect(heardMove('42'), 'JSON that is no move').to.deep.equal({ projection: '42' });
    expect(heardMove('{"position": 3}'), 'no projection').to.deep.equal({ projection: '{"position": 3}' });
  });
});
