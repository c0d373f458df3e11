/**
 * Freshness tickets from Redis (shared/adapters/redis-freshness-tickets.ts), through a real redis-server: a replica's
 * ticket is above every ticket read before it was taken, a projector reads the latest taken from another connection,
 * both fail fast while Redis is away (so data is judged older, never fresher), and a Redis that comes back empty
 * starts a new epoch, whose numbers are never compared with the old one's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { redisFreshnessTickets } from '../../../shared/adapters/redis-freshness-tickets.ts';
import type { FreshnessTicket } from '../../../shared/ports/freshness-tickets.ts';
import { freePort, startTestRedis, type TestRedis } from '../../support/redis-server.ts';
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

  it('never gives a number again in an epoch when Redis evicts one of its keys (a maxmemory policy over all keys)', async () => {
    const tickets = redisFreshnessTickets(redis.url, () => undefined);
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      await until('connected', () => tickets.take().then(() => true, () => false));
      const keys = await admin.keys('watchcat:freshness-ticket*');
      expect(keys, 'the keys of the counter').not.to.deep.equal([]);
      // Each key alone, as an eviction policy over all keys (allkeys-random, allkeys-lru) may drop any one of them.
      for (const key of keys) {
        const before: FreshnessTicket[] = [];
        for (let i = 0; i < 3; i += 1) before.push(await tickets.take());
        await admin.del(key);
        const after = await tickets.take();
        const repeated = before.filter((ticket) => ticket.epoch === after.epoch && ticket.n >= after.n);
        expect(repeated, `${key} evicted: ${JSON.stringify(after)} after ${JSON.stringify(before.at(-1))}`).to.deep.equal([]);
      }
    } finally {
      admin.disconnect();
      await tickets.close();
    }
  });
});

/**
 * A Redis that comes back with its keys but an older count (restarted from an RDB snapshot or an AOF synced every
 * second, or a replica promoted before it had every write) keeps the epoch key: were the epoch that key alone, the
 * numbers after it would repeat numbers given before, and a replica would place a confirmation naming an old ticket
 * by a ticket it asked for later (own-tickets.ts), as fresh as the old rule says, whatever its write's delay.
 */
describe('freshness tickets over a Redis restarted from an older snapshot', function () {
  this.timeout(20_000);
  let dir: string;
  let port: number;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', 'dump.rdb',
      '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await until('redis-server answers', () => probe.connect().then(() => probe.ping()).then(() => true, () => false));
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watchcat-tickets-'));
    port = await freePort();
    await start();
  });
  after(async () => {
    await kill();
    await rm(dir, { recursive: true, force: true });
  });

  it('never gives a ticket of an epoch at or below one given before in it', async () => {
    const tickets = redisFreshnessTickets(`redis://127.0.0.1:${port}`, () => undefined);
    const admin = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
    admin.on('error', () => undefined);
    try {
      await until('connected', () => tickets.take().then(() => true, () => false));
      await admin.save();
      const before: FreshnessTicket[] = [];
      for (let i = 0; i < 5; i += 1) before.push(await tickets.take());
      // Killed after the snapshot: it comes back with the epoch it had and the count it had at the snapshot.
      await kill();
      await start();
      let after: FreshnessTicket | undefined;
      await until('a ticket after the restart', async () => (after = await tickets.take().catch(() => undefined)) !== undefined);
      const repeated = before.filter((ticket) => ticket.epoch === after!.epoch && ticket.n >= after!.n);
      expect(repeated, `a ticket ${JSON.stringify(after)} after tickets up to ${JSON.stringify(before.at(-1))}`).to.deep.equal([]);
    } finally {
      admin.disconnect();
      await tickets.close();
    }
  });
});
