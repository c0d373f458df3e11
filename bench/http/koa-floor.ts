/**
 * The floor of the client's stack, for bench/chain-cost.ts: Koa alone answering the recorded bytes and headers
 * (one Map lookup, the headers set one by one, as any Koa app sends them), optionally behind koa-ratelimit memory
 * limiters as many as ours counts for that route (one, three for a verification), with their headers. What is
 * above this floor in our chain is ours to cut; the floor is not, since Koa and koa-ratelimit stay.
 */
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import ratelimit from 'koa-ratelimit';
import { answerKey, type RecordedAnswer } from './targets.ts';
import { listenOnLoopback } from './listen.ts';

const LIMIT_HEADERS = new Set(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);

export async function startKoaFloor(answers: readonly RecordedAnswer[], withLimits: boolean): Promise<{ server: Server; url: string }> {
  const replies = new Map(answers.map((answer) => [answerKey(answer.target.method, answer.target.url), {
    body: answer.bytes,
    headers: answer.headers.filter(([name]) => !withLimits || !LIMIT_HEADERS.has(name)),
    limits: withLimits ? (answer.target.name === 'verify' ? 3 : 1) : 0,
  }]));
  const limiter = (namespace: string) => ratelimit({
    driver: 'memory', db: new Map(), duration: 60_000, max: 1e9, namespace, id: (ctx) => ctx.req.socket.remoteAddress ?? 'unknown',
  });
  const limiters = [limiter('general'), limiter('verify'), limiter('verify-global')];
  const app = new Koa();
  app.use(async (ctx, next) => {
    const reply = replies.get(answerKey(ctx.method, ctx.url));
    if (reply === undefined) return next();
    const send = async () => {
      for (const [name, value] of reply.headers) ctx.res.setHeader(name, value);
      ctx.status = 200;
      ctx.body = reply.body;
    };
    // The limiters one inside the other, as koa-ratelimit middlewares run.
    let step = send;
    for (let i = reply.limits - 1; i >= 0; i -= 1) {
      const inner = step;
      step = () => limiters[i]!(ctx, inner);
    }
    await step();
  });
  const server = createServer(app.callback());
  return { server, url: await listenOnLoopback(server) };
}
