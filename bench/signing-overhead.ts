/**
 * `node --import tsx bench/signing-overhead.ts`: what the answer-signing middleware (read-api/signing/) costs, in
 * process on real Koa contexts (no sockets, so the load of a shared machine blurs it least). Three variants take
 * turns in rounds: a pass-through middleware (the baseline), the signing middleware on a request without
 * `Accept-Signature`, and on one with it (digest and Ed25519 signature of a 315-byte verification answer); then
 * signed answers that pin a transparency log tree (read-api/transparency/answer-checkpoint.ts, over a log of 1,000
 * events in an in-memory read store): read at the log's last leaf (the latest checkpoint) and read 500 events behind
 * it (a prefix of it, kept per position). Prints the median per-request time of each over the rounds, and the
 * pinned ones' ratio to the plain signed answer, as one JSON line.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import Koa from 'koa';
import { generateKeyPairSync } from 'node:crypto';
import { answerSigner } from '../read-api/signing/sign-answers.ts';
import { answerCheckpoint } from '../read-api/transparency/answer-checkpoint.ts';
import { openSqliteEventStore } from '../shared/adapters/sqlite-event-store.ts';
import { serialRegistered } from '../test/fixtures/events.ts';
import { signedLogOf } from '../test/support/signed-log.ts';
import { testSigningKeys } from '../test/support/signing-keys.ts';
import { median, round } from './report/stats.ts';

const ROUNDS = 15;
const CALLS = { plain: 20_000, signed: 500 };
const BODY = Buffer.alloc(315, 'x');
const LOG_EVENTS = 1_000;

const app = new Koa();
const keys = (await testSigningKeys()).current;
const events = openSqliteEventStore(':memory:');
for (let i = 0; i < LOG_EVENTS; i += 1) await events.append(`serial-B-${i}`, [serialRegistered(`B-${String(i).padStart(5, '0')}`)], 'no_stream');
const { log } = await signedLogOf(events, generateKeyPairSync('ed25519').privateKey, 'bench.example/watchcat/events');
/** As the front door runs it: on the final answer, and not at all (no promise) for a request that asks for nothing. */
const signingWith = (signer: ReturnType<typeof answerSigner>): Koa.Middleware => async (ctx, next) => {
  await next();
  if (ctx.req.headers['accept-signature'] !== undefined) await signer(ctx);
};
const signing = signingWith(answerSigner(keys));
const pinning = signingWith(answerSigner(keys, answerCheckpoint(log)));
const passThrough: Koa.Middleware = (_ctx, next) => next();
/** The answer, read at `position` when given (as conditional-answer.ts stamps it). */
const answerAt = (position?: number) => async (ctx: Koa.Context) => {
  ctx.type = 'application/json; charset=utf-8';
  if (position !== undefined) ctx.set('X-Read-Model-Position', String(position));
  ctx.body = BODY;
};

function context(headers: Record<string, string>): Koa.Context {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/api/public/verify/AUR-2021-000042?lang=en';
  req.headers = headers;
  return app.createContext(req, new ServerResponse(req)) as Koa.Context;
}

/** Nanoseconds per request of `middleware` over `calls` fresh contexts (context creation timed apart and removed). */
async function perRequest(middleware: Koa.Middleware, headers: Record<string, string>, calls: number, position?: number): Promise<number> {
  const contexts = Array.from({ length: calls }, () => context(headers));
  const answer = answerAt(position);
  const start = process.hrtime.bigint();
  for (const ctx of contexts) await middleware(ctx, () => answer(ctx));
  return Number(process.hrtime.bigint() - start) / calls;
}

const ASKING = { host: 'api.example', 'accept-signature': 'sig1=("@status" "content-digest");alg="ed25519"' };
const variants = {
  pass_through: () => perRequest(passThrough, {}, CALLS.plain),
  unsigned: () => perRequest(signing, {}, CALLS.plain),
  signed: () => perRequest(signing, ASKING, CALLS.signed),
  // Event i is at position i: the last leaf is at LOG_EVENTS.
  signed_pinned_at_log_head: () => perRequest(pinning, ASKING, CALLS.signed, LOG_EVENTS),
  signed_pinned_behind_log: () => perRequest(pinning, ASKING, CALLS.signed, LOG_EVENTS / 2),
};
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const loadAtStart = loadavg()[0];
for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
  for (const [name, run] of Object.entries(variants)) samples[name]!.push(await run());
}
const ns = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, round(median(values))]));
process.stdout.write(`${JSON.stringify({
  median_ns_per_request: ns,
  unsigned_overhead_ns: round(ns['unsigned']! - ns['pass_through']!),
  pinned_to_signed_ratio: {
    at_log_head: round(ns['signed_pinned_at_log_head']! / ns['signed']!, 3), behind_log: round(ns['signed_pinned_behind_log']! / ns['signed']!, 3),
  },
  load_average: [loadAtStart, loadavg()[0]].map((value) => round(value ?? 0, 2)),
})}\n`);
await log.stop();
await events.close();
