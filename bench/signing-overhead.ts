/**
 * `node --import tsx bench/signing-overhead.ts`: what the answer-signing middleware (read-api/signing/) costs, in
 * process on real Koa contexts (no sockets, so the load of a shared machine blurs it least). Three variants take
 * turns in rounds: a pass-through middleware (the baseline), the signing middleware on a request without
 * `Accept-Signature`, and on one with it (digest and Ed25519 signature of a 315-byte verification answer).
 * Prints the median per-request time of each over the rounds, as one JSON line.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import Koa from 'koa';
import { answerSigner } from '../read-api/signing/sign-answers.ts';
import { testSigningKeys } from '../test/support/signing-keys.ts';
import { median, round } from './report/stats.ts';

const ROUNDS = 15;
const CALLS = { plain: 20_000, signed: 500 };
const BODY = Buffer.alloc(315, 'x');

const app = new Koa();
const signer = answerSigner((await testSigningKeys()).current);
// As the front door runs it: on the final answer, and not at all (no promise) for a request that asks for nothing.
const signing: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.req.headers['accept-signature'] !== undefined) await signer(ctx);
};
const passThrough: Koa.Middleware = (_ctx, next) => next();
const answer = async (ctx: Koa.Context) => {
  ctx.type = 'application/json; charset=utf-8';
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
async function perRequest(middleware: Koa.Middleware, headers: Record<string, string>, calls: number): Promise<number> {
  const contexts = Array.from({ length: calls }, () => context(headers));
  const start = process.hrtime.bigint();
  for (const ctx of contexts) await middleware(ctx, () => answer(ctx));
  return Number(process.hrtime.bigint() - start) / calls;
}

const variants = {
  pass_through: () => perRequest(passThrough, {}, CALLS.plain),
  unsigned: () => perRequest(signing, {}, CALLS.plain),
  signed: () => perRequest(signing, { host: 'api.example', 'accept-signature': 'sig1=("@status" "content-digest");alg="ed25519"' }, CALLS.signed),
};
const samples: Record<string, number[]> = { pass_through: [], unsigned: [], signed: [] };
const loadAtStart = loadavg()[0];
for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
  for (const [name, run] of Object.entries(variants)) samples[name]!.push(await run());
}
const ns = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, round(median(values))]));
process.stdout.write(`${JSON.stringify({
  median_ns_per_request: ns,
  unsigned_overhead_ns: round(ns['unsigned']! - ns['pass_through']!),
  load_average: [loadAtStart, loadavg()[0]].map((value) => round(value ?? 0, 2)),
})}\n`);
