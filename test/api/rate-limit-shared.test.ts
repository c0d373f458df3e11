/**
 * The rate limits shared through Redis (docs/api.md "Rate limits"; README "Rate limits"), against an in-process
 * stand-in for the one command koa-ratelimit's Redis driver sends (async-ratelimiter's `ratelimiter` script: a
 * sliding window per key, run for the limits of one request in one round trip), so that what the limits do with Redis answering, failing and answering again is seen
 * with no server and no wait: each limit keeps its windows under its own namespace, a failure degrades the limits
 * once (one warning) until Redis decides a request again (one notice, mode `redis`), and an error thrown by the
 * route behind a limit Redis decided is the route's own, not a reason to decide the request again in memory.
 * The wall clock is faked (node:test mock timers, `Date` only) where the second before Redis is asked again matters.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mock } from 'node:test';
import Koa from 'koa';
import { Router } from '@koa/router';
import { expect } from 'chai';
import type { Logger } from '../../shared/logging/logger.ts';
import { createRateLimits, type RateLimits } from '../../read-api/rate-limit/rate-limits.ts';
import { testConfig } from './rate-limit-harness.ts';
import { redisStandIn } from './support/redis-stand-in.ts';

/** Only the wall clock is faked; timers stay real, so HTTP and Mocha run as usual. */
const fakeClock = () => mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });

interface Logged {
  level: string;
  message: string;
  /** The error logged with it, if any. */
  err?: unknown;
}

/** A logger that keeps what it is told (message last, as pino takes it). */
function recordingLogger(): { logger: Logger; logged: Logged[] } {
  const logged: Logged[] = [];
  const at = (level: string) => (...args: unknown[]) => {
    const fields = args.length > 1 ? (args[0] as { err?: unknown }) : {};
    logged.push({ level, message: String(args.at(-1)), ...('err' in fields ? { err: fields.err } : {}) });
  };
  const logger = { warn: at('warn'), info: at('info'), debug: at('debug'), error: at('error'), trace: at('trace'), fatal: at('fatal') };
  return { logger: logger as unknown as Logger, logged };
}

/** The limits mounted as the public app mounts them, with a route that fails on demand. */
async function serve(limits: RateLimits) {
  const app = new Koa();
  const router = new Router();
  let runs = 0;
  router.get('/api/public/status', (ctx) => { ctx.body = { status: 'ok' }; });
  router.get('/api/public/verify/:serial', limits.verify, (ctx) => { ctx.body = { serial: ctx.params['serial'] }; });
  router.get('/api/public/failing', () => {
    runs += 1;
    throw new Error('the route failed');
  });
  app.silent = true;
  app.use(limits.general).use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    status: async (path: string) => {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      return response.status;
    },
    routeRuns: () => runs,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('rate limits shared through Redis (an in-process stand-in for its command)', () => {
  let served: Awaited<ReturnType<typeof serve>> | undefined;
  afterEach(async () => {
    mock.timers.reset();
    await served?.close();
    served = undefined;
  });

  it('keeps each limit under its own namespace: rl:general, rl:verify and rl:verify-global (one key for all clients)', async () => {
    const redis = redisStandIn();
    const { logger } = recordingLogger();
    served = await serve(createRateLimits({ config: testConfig(), redis: redis.client, logger }));
    expect(await served.status('/api/public/status')).to.equal(200);
    expect(await served.status('/api/public/verify/WC-1')).to.equal(200);
    expect(redis.keys).to.deep.equal([
      'rl:general:127.0.0.1',
      'rl:general:127.0.0.1', 'rl:verify:127.0.0.1', 'rl:verify-global:all',
    ]);
  });

  it('reports each refusal once, under the limit that made it: general, verify, verify_global (the metrics\' label)', async () => {
    const rejected: string[] = [];
    const config = testConfig({ RATE_LIMIT_PER_MINUTE: '4', VERIFY_RATE_LIMIT_PER_MINUTE: '2', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1' });
    const { logger } = recordingLogger();
    served = await serve(createRateLimits({ config, redis: redisStandIn().client, logger, metrics: { rejected: (limit) => rejected.push(limit) } }));
    const codes = [];
    for (const _ of [1, 2, 3]) codes.push(await served.status('/api/public/verify/WC-1'));
    codes.push(await served.status('/api/public/status'), await served.status('/api/public/status'));
    // The global budget of 1 refuses the second verification, the client's own limit of 2 the third; the general
    // limit of 4 has counted all four requests before, and refuses the fifth.
    expect(codes).to.deep.equal([200, 429, 429, 200, 429]);
    expect(rejected).to.deep.equal(['verify_global', 'verify', 'general']);
  });

  it('degrades once when Redis fails (one warning), and is back to shared limits when Redis decides again (one notice)', async () => {
    fakeClock();
    const redis = redisStandIn();
    const { logger, logged } = recordingLogger();
    const limits = createRateLimits({ config: testConfig({ RATE_LIMIT_PER_MINUTE: '100' }), redis: redis.client, logger });
    served = await serve(limits);
    expect(limits.mode()).to.equal('redis');
    expect(await served.status('/api/public/status')).to.equal(200);
    expect(limits.mode(), 'Redis decided').to.equal('redis');

    redis.state.down = true;
    for (const _ of [1, 2]) {
      expect(await served.status('/api/public/status')).to.equal(200);
      expect(limits.mode(), 'Redis failed').to.equal('degraded');
      mock.timers.tick(1_000);
    }
    const warnings = logged.filter((entry) => entry.level === 'warn');
    expect(warnings, 'one warning for the whole outage').to.have.length(1);
    expect(warnings[0]!.message).to.match(/Redis/);
    expect((warnings[0]!.err as Error).message, 'the warning carries what failed').to.equal('no answer from Redis');

    redis.state.down = false;
    expect(await served.status('/api/public/status')).to.equal(200);
    expect(limits.mode(), 'Redis decided again').to.equal('redis');
    const notices = logged.filter((entry) => entry.level === 'info');
    expect(notices, 'one notice that limits are shared again').to.have.length(1);
    expect(notices[0]!.message).to.match(/Redis/);
    expect(await served.status('/api/public/status')).to.equal(200);
    expect(logged.filter((entry) => entry.level === 'info'), 'no second notice while Redis keeps answering').to.have.length(1);
    expect(redis.keys, 'Redis decided the first and the last two requests').to.have.length(3);
  });

  it('is degraded from the start while the connection is not ready, and warns once naming the connection\'s state', async () => {
    const redis = redisStandIn();
    (redis.client as { status: string }).status = 'reconnecting';
    const { logger, logged } = recordingLogger();
    const limits = createRateLimits({ config: testConfig(), redis: redis.client, logger });
    served = await serve(limits);
    expect(limits.mode()).to.equal('degraded');
    for (const _ of [1, 2]) expect(await served.status('/api/public/status')).to.equal(200);
    expect(redis.keys, 'Redis is not asked while not ready').to.deep.equal([]);
    const warnings = logged.filter((entry) => entry.level === 'warn');
    expect(warnings).to.have.length(1);
    expect((warnings[0]!.err as Error).message).to.equal('redis connection is reconnecting');
  });

  it('sends an error of the route behind a limit Redis decided up as it is: one run of the route, a 500, Redis still healthy', async () => {
    const redis = redisStandIn();
    const { logger, logged } = recordingLogger();
    const limits = createRateLimits({ config: testConfig(), redis: redis.client, logger });
    served = await serve(limits);
    expect(await served.status('/api/public/failing')).to.equal(500);
    expect(served.routeRuns(), 'the route ran once, not again under the memory driver').to.equal(1);
    expect(limits.mode()).to.equal('redis');
    expect(logged.filter((entry) => entry.level === 'warn')).to.deep.equal([]);
  });
});

