/**
 * The peer: what a developer would write instead with Fastify, a route per operation path that finds the answer's
 * object and serializes it with `JSON.stringify` on every request (no response schema, no cache of bytes).
 */
import Fastify, { type FastifyInstance } from 'fastify';
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

export async function startFastifyPeer(answers: readonly RecordedAnswer[]): Promise<{ app: FastifyInstance; url: string }> {
  const values = new Map(answers.map((answer) => [answerKey(answer.target.method, answer.target.url), answer.value]));
  const app = Fastify({ logger: false });
  for (const [method, path] of ROUTES) {
    app.route({
      method,
      url: path,
      handler: async (request, reply) => {
        const value = values.get(answerKey(request.method, request.url));
        if (value === undefined) return reply.code(404).type(JSON_TYPE).send('{"detail":"Not Found"}');
        return reply.type(JSON_TYPE).send(JSON.stringify(value));
      },
    });
  }
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}
