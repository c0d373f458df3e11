/**
 * The limit: a bare `node:http` server answering each benchmarked request with the bytes and the headers our server
 * answered it with, recorded before the run. No framework, no routing beyond one Map lookup, no serialization:
 * what Node itself allows on this machine for the very answer we send, so a ratio measures only our machinery.
 */
import { createServer, type Server } from 'node:http';
import { answerKey, type RecordedAnswer } from './targets.ts';
import { listenOnLoopback } from './listen.ts';

export async function startLimitServer(answers: readonly RecordedAnswer[]): Promise<{ server: Server; url: string }> {
  const heads = new Map(answers.map((answer) => [
    answerKey(answer.target.method, answer.target.url),
    { body: answer.bytes, headers: [...answer.headers.flat(), 'Content-Length', String(answer.bytes.length)] },
  ]));
  const server = createServer((req, res) => {
    const answer = heads.get(answerKey(req.method ?? 'GET', req.url ?? ''));
    // A POST body is drained so the connection can be reused; its content is not needed to answer.
    req.resume();
    req.on('end', () => {
      if (answer === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, answer.headers);
      res.end(answer.body);
    });
  });
  return { server, url: await listenOnLoopback(server) };
}
