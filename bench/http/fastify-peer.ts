/**
 * The peer: what a developer would write instead with Fastify and `@fastify/rate-limit`, serving per request the
 * very bytes and headers our server answered (recorded before the run, http/targets.ts), with the limits ours has
 * on each route: the plugin's general per-IP limit on every route, and for a verification also the verification
 * per-IP limit and the global budget (`createRateLimit`, since the plugin runs one limit per request through its
 * hook). The plugin's memory store, or its Redis store over ioredis. The rate-limit figures are the plugin's own;
 * a refusal answers `{detail}` with our front door's static headers.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { answerKey, type RecordedAnswer } from './targets.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const ROUTES = [
  ['GET', '/api/public/catalogue'],
  ['GET', '/api/public/catalogue/:reference'],
  ['GET', '/api/public/collections'],
  ['GET', '/api/public/configurator/options/:collection'],
  ['POST', '/api/public/configurator/price'],
  ['GET', '/api/public/verify/:serial'],
] as const;
const VERIFY_PATH = '/api/public/verify/:serial';
const WINDOW_MS = 60_000;
/** Set by the plugin on every answer; recorded from ours, so left out of what the peer copies. */
const LIMIT_HEADERS = new Set(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']);
/** Our front door's headers that every answer carries, refusals included. */
const STATIC_HEADERS = new Set(['vary', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'content-security-policy']);

export interface PeerLimits {
  general: number;
  verify: number;
  verifyGlobal: number;
}

export interface PeerOptions {
  limits: PeerLimits;
  /** The plugin's Redis store over this client; its memory store without it. */
  redis?: Redis;
  /** Believe `X-Forwarded-For` from these proxies (Fastify's `trustProxy`), as ours does with TRUST_PROXY. */
  trustProxy?: string;
}

export async function startFastifyPeer(answers: readonly RecordedAnswer[], options: PeerOptions): Promise<{ app: FastifyInstance; url: string }> {
  const replies = new Map(answers.map((answer) => [answerKey(answer.target.method, answer.target.url), {
    body: answer.bytes,
    headers: Object.fromEntries(answer.headers.filter(([name]) => !LIMIT_HEADERS.has(name))),
  }]));
  const staticHeaders = Object.fromEntries((answers[0]?.headers ?? []).filter(([name]) => STATIC_HEADERS.has(name)));
  const app = Fastify({ logger: false, ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}) });
  // Room for every address of a flood of refusals, so the LRU never forgets a window (ours never does within it).
  await app.register(rateLimit, {
    // skipOnError: a request Redis cannot decide in time goes through, as ours decides it in memory then.
    global: true, max: options.limits.general, timeWindow: WINDOW_MS, cache: 100_000, skipOnError: true,
    // Our refusal's words, so both send bodies of the same size.
    errorResponseBuilder: (_request, context) => Object.assign(new Error(`Rate limit exceeded: ${context.max} per 1 minute`), { statusCode: 429 }),
    ...(options.redis ? { redis: options.redis, nameSpace: 'peer-general-' } : {}),
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    void reply.code(error.statusCode ?? 500).headers(staticHeaders).type(JSON_TYPE).send(JSON.stringify({ detail: error.message }));
  });
  const verifyPerIp = app.createRateLimit({ max: options.limits.verify, timeWindow: WINDOW_MS, keyGenerator: (request) => `verify:${request.ip}` });
  const verifyGlobal = app.createRateLimit({ max: options.limits.verifyGlobal, timeWindow: WINDOW_MS, keyGenerator: () => 'verify-global' });
  const refuse = (reply: FastifyReply, max: number, ttl: number) => reply.code(429).headers({
    ...staticHeaders, 'x-ratelimit-limit': max, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': ttl, 'retry-after': ttl,
  }).type(JSON_TYPE).send(JSON.stringify({ detail: `Rate limit exceeded: ${max} per 1 minute` }));
  // The verification limits: per IP, then the global budget for what that let through; the client sees its own figures.
  const verifyLimits = async (request: FastifyRequest, reply: FastifyReply) => {
    const own = await verifyPerIp(request);
    if (own.isAllowed) return;
    if (own.isExceeded) return refuse(reply, own.max, own.ttlInSeconds);
    void reply.headers({ 'x-ratelimit-limit': own.max, 'x-ratelimit-remaining': own.remaining, 'x-ratelimit-reset': own.ttlInSeconds });
    const all = await verifyGlobal(request);
    if (!all.isAllowed && all.isExceeded) return refuse(reply, all.max, all.ttlInSeconds);
    return undefined;
  };
  for (const [method, url] of ROUTES) {
    app.route({
      method, url,
      ...(url === VERIFY_PATH ? { preHandler: verifyLimits } : {}),
      handler: async (request, reply) => {
        const answer = replies.get(answerKey(request.method, request.url));
        if (answer === undefined) return reply.code(404).type(JSON_TYPE).send('{"detail":"Not Found"}');
        return reply.headers(answer.headers).send(answer.body);
      },
    });
  }
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}
