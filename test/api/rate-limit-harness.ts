/**
 * A tiny Koa app mounting the rate limits the way the public app does (general app-wide, verify on the
 * verification route), and the behaviours every rate-limit driver must show, run by the memory and Redis suites.
 */
import { once } from 'node:events';
import { mock } from 'node:test';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Router } from '@koa/router';
import type { Redis } from 'ioredis';
import { expect } from 'chai';
import { loadConfig, type Config } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { createRateLimits, type LimitName, type RateLimitDeps, type RateLimits } from '../../read-api/rate-limit/rate-limits.ts';

/** The wall clock when this module loaded, less the monotonic time then: the rate-limit drivers' anchor, near enough. */
const LOADED_AT = Date.now() - performance.now();

export const silentLogger = createLogger('silent', 'test');

export interface Served {
  limits: RateLimits;
  /** `http://127.0.0.1:<port>`, for requests other than a GET. */
  base: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function serveWithLimits(limits: RateLimits): Promise<Served> {
  const app = new Koa();
  const router = new Router();
  router.get('/api/public/status', (ctx) => { ctx.body = { status: 'ok' }; });
  router.get('/api/public/verify/:serial', limits.verify, (ctx) => { ctx.body = { serial: ctx.params['serial'] }; });
  router.get('/llms.txt', (ctx) => { ctx.body = 'hello'; });
  app.use(limits.general).use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    limits,
    base,
    get: (path, headers = {}) => fetch(`${base}${path}`, { headers }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A test's way to serve the limits of a configuration (`env`; through `redis` when given): what it served is closed
 * after each test, and a faked wall clock put back first.
 */
export function servedEachTest(): (env?: Record<string, string>, redis?: Redis) => Promise<Served> {
  let served: Served | undefined;
  afterEach(async () => {
    mock.timers.reset();
    await served?.close();
    served = undefined;
  });
  return async (env = {}, redis) =>
    (served = await serveWithLimits(createRateLimits({ config: testConfig(env), logger: silentLogger, ...(redis ? { redis } : {}) })));
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig(env);
}

/** Sends `n` requests one after the other and returns the statuses. */
export async function statuses(served: Served, n: number, path: string, headers?: (i: number) => Record<string, string>) {
  const result: number[] = [];
  for (let i = 0; i < n; i++) {
    const response = await served.get(path, headers?.(i));
    await response.arrayBuffer();
    result.push(response.status);
  }
  return result;
}

type MakeLimits = (deps: Omit<RateLimitDeps, 'redis'>) => RateLimits;

/** Every behaviour of docs/api.md "Rate limits", for one driver. `fresh` resets the shared state between tests. */
export function rateLimitBehaviour(makeLimits: () => MakeLimits, fresh: () => Promise<void> = async () => {}): void {
  const open: Served[] = [];
  const serve = async (env: Record<string, string> = {}, rejected: LimitName[] = []) => {
    await fresh();
    const limits = makeLimits()({ config: testConfig(env), logger: silentLogger, metrics: { rejected: (name) => rejected.push(name) } });
    const served = await serveWithLimits(limits);
    open.push(served);
    return served;
  };
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });

  it('answers 60 public requests a minute from one IP, then 429 with Retry-After and the general message', async () => {
    const served = await serve();
    const started = Date.now();
    expect(await statuses(served, 60, '/api/public/status')).to.deep.equal(Array(60).fill(200));
    const refused = await served.get('/api/public/status');
    const elapsed = (Date.now() - started) / 1000;
    expect(refused.status).to.equal(429);
    expect(await refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 60 per 1 minute' });
    expect(refused.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const retryAfter = refused.headers.get('retry-after') ?? '';
    expect(retryAfter).to.match(/^\d+$/);
    // The window started with the first request, `elapsed` seconds ago at most, and lasts 60 s: what is left of it,
    // in whole seconds, rounded up (one second less where the driver keeps the reset time in whole seconds).
    expect(Number(retryAfter)).to.be.within(Math.max(1, Math.floor(60 - elapsed) - 1), 60);
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
  });

  it('sends the limit, what remains and the reset time in whole Unix seconds on every public answer', async () => {
    const served = await serve();
    // The drivers count on their own clock, the wall clock at their load plus the monotonic time since (docs/api.md,
    // "Rate limits"); this module loaded with them, so its own such clock brackets theirs with the wall clock.
    const clocks = () => [Date.now(), LOADED_AT + performance.now()];
    const before = Math.floor(Math.min(...clocks()) / 1000);
    const first = await served.get('/api/public/status');
    const after = Math.floor(Math.max(...clocks()) / 1000);
    const second = await served.get('/api/public/status');
    expect(first.headers.get('x-ratelimit-limit')).to.equal('60');
    expect(first.headers.get('x-ratelimit-remaining')).to.equal('59');
    expect(second.headers.get('x-ratelimit-remaining')).to.equal('58');
    const reset = first.headers.get('x-ratelimit-reset') ?? '';
    expect(reset).to.match(/^\d+$/);
    // The window starts with the first request and lasts 60 s: it frees up 60 s after a moment between before and after.
    expect(Number(reset)).to.be.within(before + 60, after + 60);
  });

  it('refuses the 11th verification with the verification message, and verifications count toward the 60', async () => {
    const rejected: LimitName[] = [];
    const served = await serve({}, rejected);
    const verifications = await statuses(served, 11, '/api/public/verify/AB-1234');
    expect(verifications).to.deep.equal([...Array(10).fill(200), 429]);
    const refused = await served.get('/api/public/verify/AB-1234');
    expect(await refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 10 per 1 minute' });
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('10');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    // 12 verifications so far, refused ones included: 48 more requests fit in the general 60.
    expect(await statuses(served, 48, '/api/public/status')).to.deep.equal(Array(48).fill(200));
    expect((await served.get('/api/public/status')).status).to.equal(429);
    expect(rejected).to.deep.equal(['verify', 'verify', 'general']);
  });

  it('shows the verification figures on verification answers', async () => {
    const served = await serve();
    const answer = await served.get('/api/public/verify/AB-1234');
    expect(answer.headers.get('x-ratelimit-limit')).to.equal('10');
    expect(answer.headers.get('x-ratelimit-remaining')).to.equal('9');
  });

  it('ignores X-Forwarded-For unless the proxy is trusted', async () => {
    const served = await serve({ RATE_LIMIT_PER_MINUTE: '5' });
    const codes = await statuses(served, 6, '/api/public/status', (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });

  it('ignores X-Forwarded-For from a peer that is not one of the named proxies (issue 17, finding 4)', async () => {
    const served = await serve({ RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' });
    const codes = await statuses(served, 6, '/api/public/status', (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(codes).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });

  it('behind a trusted proxy counts the right-most X-Forwarded-For address', async () => {
    const served = await serve({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' });
    const forged = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
    expect(await statuses(served, 3, '/api/public/status', forged)).to.deep.equal([200, 200, 429]);
    expect((await served.get('/api/public/status', { 'x-forwarded-for': '203.0.113.8' })).status).to.equal(200);
  });

  it('counts IPv6 clients per /64 network', async () => {
    const served = await serve({ RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' });
    const from = (ip: string) => served.get('/api/public/status', { 'x-forwarded-for': ip });
    expect((await from('2001:db8:1:2::1')).status).to.equal(200);
    expect((await from('2001:db8:1:2:ffff:ffff:ffff:9')).status).to.equal(200);
    expect((await from('2001:0db8:0001:0002::42')).status).to.equal(429);
    expect((await from('2001:db8:1:3::1')).status).to.equal(200);
  });

  it('counts paths outside /api/public against the files limit of their own, not the general one (issue 42)', async () => {
    const rejected: LimitName[] = [];
    const served = await serve({ RATE_LIMIT_PER_MINUTE: '1', FILE_RATE_LIMIT_PER_MINUTE: '3' }, rejected);
    expect(await statuses(served, 3, '/llms.txt')).to.deep.equal([200, 200, 200]);
    const refused = await served.get('/llms.txt');
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('3');
    expect(await refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 3 per 1 minute' });
    expect(rejected).to.deep.equal(['files']);
    const status = await served.get('/api/public/status');
    expect(status.status).to.equal(200);
    expect(status.headers.get('x-ratelimit-limit')).to.equal('1');
  });

  it('caps verifications from all clients together with the global budget', async () => {
    const rejected: LimitName[] = [];
    const served = await serve({ VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' }, rejected);
    const codes = await statuses(served, 4, '/api/public/verify/AB-1234', (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(codes).to.deep.equal([200, 200, 200, 429]);
    const refused = await served.get('/api/public/verify/AB-1234', { 'x-forwarded-for': '203.0.113.99' });
    expect(await refused.json()).to.deep.equal({ detail: 'Rate limit exceeded: 3 per 1 minute' });
    expect(rejected).to.deep.equal(['verify_global', 'verify_global']);
  });
}
