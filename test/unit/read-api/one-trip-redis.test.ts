/**
 * The rate limits' one round trip to Redis (`read-api/rate-limit/one-trip-redis.ts`), against a client that records
 * what it is sent: the first limit of a request sends the limits that follow it in the same command, the later ones
 * are answered from that reply, a limit the trip never reached fails, and nothing leaks to another request. The
 * command's layout (key count, keys, then now, peek, and duration and max per key) is the one written in the module's
 * documentation; the replies are made up here, three numbers per limit counted.
 */
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { OneTripRedisDb, Trip } from '../../../read-api/rate-limit/one-trip-redis.ts';

type Call = (string | number)[];
type Limit = (key: string, now: number, duration: number, max: number, peek: string) => Promise<[number, number, number]>;

function recordingClient(answer: (call: Call) => Promise<number[]>) {
  const calls: Call[] = [];
  const defined: Array<{ name: string; lua: string }> = [];
  const client = {
    defineCommand(name: string, definition: { lua: string }) {
      defined.push({ name, lua: definition.lua });
      (client as Record<string, unknown>)[name] = (...args: Call) => {
        calls.push(args);
        return answer(args);
      };
    },
  };
  return { client: client as unknown as Redis, calls, defined };
}

function dbWith(answer: (call: Call) => Promise<number[]>) {
  const recorded = recordingClient(answer);
  const db = new OneTripRedisDb(recorded.client);
  db.defineCommand('ratelimiter', { numberOfKeys: 1, lua: 'return {1, 2, 3}' });
  return { ...recorded, db, limit: db['ratelimiter'] as Limit };
}

describe('the rate limits\' one round trip to Redis', () => {
  it('defines its chained command once per client, around the driver\'s script, and answers the driver\'s command name', () => {
    const { client, defined, db } = dbWith(async () => [5, 60, 10]);
    expect(defined).to.have.length(1);
    expect(defined[0]!.name).to.equal('rateLimitsInOrder');
    expect(defined[0]!.lua).to.include('local function limit(KEYS, ARGV)\nreturn {1, 2, 3}\nend');
    expect(db['ratelimiter']).to.be.a('function');
    new OneTripRedisDb(client).defineCommand('ratelimiter', { numberOfKeys: 1, lua: 'return {1, 2, 3}' });
    expect(defined).to.have.length(1);
  });

  it('a limit alone is one command for its key: count 1, the key, now, peek, duration, max; its reply the first three numbers', async () => {
    const { calls, limit } = dbWith(async () => [9, 1_700_000_060, 10]);
    expect(await limit('rl:general:1.2.3.4', 1_700_000_000_000_000, 60_000, 10, 'false')).to.deep.equal([9, 1_700_000_060, 10]);
    expect(calls).to.deep.equal([[1, 'rl:general:1.2.3.4', 1_700_000_000_000_000, 'false', 60_000, 10]]);
  });

  it('the first limit of a trip sends the following ones, which are then answered from its reply without another command', async () => {
    const { calls, db, limit } = dbWith(async () => [9, 100, 10, 4, 101, 5, 599, 102, 600]);
    const trip = new Trip([{ key: 'rl:verify:ip', duration: 60_000, max: 5 }, { key: 'rl:verify-global:all', duration: 30_000, max: 600 }]);
    db.use(trip);
    expect(await limit('rl:general:ip', 7, 60_000, 10, 'false')).to.deep.equal([9, 100, 10]);
    expect(calls).to.deep.equal([[3, 'rl:general:ip', 'rl:verify:ip', 'rl:verify-global:all', 7, 'false', 60_000, 10, 60_000, 5, 30_000, 600]]);
    expect(trip.following).to.deep.equal([]);
    db.use(trip);
    expect(await limit('rl:verify:ip', 8, 60_000, 5, 'false')).to.deep.equal([4, 101, 5]);
    db.use(trip);
    expect(await limit('rl:verify-global:all', 9, 30_000, 600, 'false')).to.deep.equal([599, 102, 600]);
    expect(calls).to.have.length(1);
    expect(trip.replies.size).to.equal(0);
  });

  it('a reply is used once: the same limit asked again goes to Redis on its own', async () => {
    const { calls, db, limit } = dbWith(async () => [9, 100, 10, 4, 101, 5]);
    const trip = new Trip([{ key: 'rl:verify:ip', duration: 60_000, max: 5 }]);
    db.use(trip);
    await limit('rl:general:ip', 7, 60_000, 10, 'false');
    db.use(trip);
    await limit('rl:verify:ip', 8, 60_000, 5, 'false');
    db.use(trip);
    await limit('rl:verify:ip', 9, 60_000, 5, 'false');
    expect(calls.map((call) => call.slice(0, 2))).to.deep.equal([[2, 'rl:general:ip'], [1, 'rl:verify:ip']]);
  });

  it('the trip is for the next call only: a call after it, with no trip of its own, sends its key alone', async () => {
    const { calls, db, limit } = dbWith(async () => [9, 100, 10, 4, 101, 5]);
    db.use(new Trip([{ key: 'rl:verify:ip', duration: 60_000, max: 5 }]));
    await limit('rl:general:ip', 7, 60_000, 10, 'false');
    await limit('rl:verify:ip', 8, 60_000, 5, 'false');
    expect(calls.map((call) => call.slice(0, 2))).to.deep.equal([[2, 'rl:general:ip'], [1, 'rl:verify:ip']]);
  });

  it('a limit the trip did not reach (an earlier one refused) fails, and nothing is left unhandled when it is never asked', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { db, limit } = dbWith(async () => [0, 100, 10]);
      const trip = new Trip([{ key: 'rl:verify:ip', duration: 60_000, max: 5 }, { key: 'rl:verify-global:all', duration: 60_000, max: 600 }]);
      db.use(trip);
      expect(await limit('rl:general:ip', 7, 60_000, 10, 'false')).to.deep.equal([0, 100, 10]);
      db.use(trip);
      const error = await limit('rl:verify:ip', 8, 60_000, 5, 'false').then(() => undefined, (caught: unknown) => caught);
      expect((error as Error).message).to.equal('rate limit not counted: an earlier limit refused the request');
      const failing = dbWith(async () => { throw new Error('no answer from Redis'); });
      failing.db.use(new Trip([{ key: 'rl:verify:ip', duration: 60_000, max: 5 }]));
      const first = await failing.limit('rl:general:ip', 7, 60_000, 10, 'false').then(() => undefined, (caught: unknown) => caught);
      expect((first as Error).message).to.equal('no answer from Redis');
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).to.deep.equal([]);
  });
});
