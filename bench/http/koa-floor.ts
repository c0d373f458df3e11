/**
 * The floor of the client's stack, for bench/chain-cost.ts: Koa answering the recorded bytes and headers (one Map
 * lookup, the headers set one by one, as any Koa app sends them), in three forms:
 * - `koa`: Koa alone;
 * - `koa-ratelimit`: behind koa-ratelimit memory limiters as many as ours counts for that route (one, three for a
 *   verification), with their headers, and no router (stricter than the client's stack);
 * - `koa-router-ratelimit`: the client's stack as issue 42 and the developers' guide name it, Koa + @koa/router +
 *   koa-ratelimit: the general limiter app-wide, a router holding every public operation's route (the templates of
 *   shared/read-model/public-api/operations/index.ts), the two verification limiters on the verification route.
 * What is above this floor in our chain is ours to cut; the floor is not, since Koa, @koa/router and koa-ratelimit stay.
 */
import { createServer, type Server } from 'node:http';
import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import ratelimit from 'koa-ratelimit';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { answerKey, type RecordedAnswer } from './targets.ts';
import { listenOnLoopback } from './listen.ts';

export const FLOOR_KINDS = ['koa', 'koa-ratelimit', 'koa-router-ratelimit'] as const;
export type FloorKind = (typeof FLOOR_KINDS)[number];
export const isFloorKind = (name: string): name is FloorKind => (FLOOR_KINDS as readonly string[]).includes(name);

const LIMIT_HEADERS = new Set(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
const VERIFICATION_ROUTE = '/api/public/verify/:serial';

export async function startKoaFloor(answers: readonly RecordedAnswer[], kind: FloorKind): Promise<{ server: Server; url: string }> {
  const withLimits = kind !== 'koa';
  const replies = new Map(answers.map((answer) => [answerKey(answer.target.method, answer.target.url), {
    body: answer.bytes,
    headers: answer.headers.filter(([name]) => !withLimits || !LIMIT_HEADERS.has(name)),
    limits: withLimits ? (answer.target.name === 'verify' ? 3 : 1) : 0,
  }]));
  const limiter = (namespace: string) => ratelimit({
    driver: 'memory', db: new Map(), duration: 60_000, max: 1e9, namespace, id: (ctx) => ctx.req.socket.remoteAddress ?? 'unknown',
  });
  const limiters = [limiter('general'), limiter('verify'), limiter('verify-global')];
  const send: Middleware = async (ctx, next) => {
    const reply = replies.get(answerKey(ctx.method, ctx.url));
    if (reply === undefined) return next();
    for (const [name, value] of reply.headers) ctx.res.setHeader(name, value);
    ctx.status = 200;
    ctx.body = reply.body;
  };
  const app = new Koa();
  if (kind === 'koa-router-ratelimit') {
    const router = new Router();
    for (const operation of publicOperations) {
      const chain = operation.path === VERIFICATION_ROUTE ? [limiters[1]!, limiters[2]!, send] : [send];
      if (operation.method === 'GET') router.get(operation.path, ...chain);
      else router.post(operation.path, ...chain);
    }
    app.use(limiters[0]!);
    app.use(router.routes());
    app.use(router.allowedMethods());
  } else {
    app.use(async (ctx, next) => {
      const reply = replies.get(answerKey(ctx.method, ctx.url));
      if (reply === undefined) return next();
      // The limiters one inside the other, as koa-ratelimit middlewares run.
      let step = () => send(ctx, next);
      for (let i = reply.limits - 1; i >= 0; i -= 1) {
        const inner = step;
        step = () => limiters[i]!(ctx, inner);
      }
      await step();
    });
  }
  const server = createServer(app.callback());
  return { server, url: await listenOnLoopback(server) };
}
