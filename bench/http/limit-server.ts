/**
 * The limit: a bare `node:http` server answering each benchmarked request with bytes computed before the run. No
 * framework, no routing beyond one Map lookup, no serialization: what Node itself allows on this machine.
 */
import { createServer, type Server } from 'node:http';
import { answerKey, type RecordedAnswer } from './targets.ts';
import { listenOnLoopback } from './listen.ts';

export async function startLimitServer(answers: readonly RecordedAnswer[]): Promise<{ server: Server; url: string }> {
  const bytes = new Map(answers.map((answer) => [answerKey(answer.target.method, answer.target.url), answer.bytes]));
  const server = createServer((req, res) => {
    const body = bytes.get(answerKey(req.method ?? 'GET', req.url ?? ''));
    // A POST body is drained so the connection can be reused; its content is not needed to answer.
    req.resume();
    req.on('end', () => {
      if (body === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    });
  });
  return { server, url: await listenOnLoopback(server) };
}
