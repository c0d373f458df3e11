/**
 * The load generator, run as its own process so that it never shares an event loop with the server it measures.
 * It reads one JSON `LoadJob` per line on stdin, runs autocannon for it, and answers one JSON `LoadResult` per line
 * on stdout. Kept alive between jobs so that process start-up is paid once.
 */
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { LoadJob, LoadResult } from './load-protocol.ts';

/** Rotates `X-Forwarded-For` over `count` addresses, one request after the other. */
function rotatingClients(count: number): autocannon.Request[] {
  let next = 0;
  return [{
    setupRequest: (request) => {
      next = (next + 1) % count;
      return { ...request, headers: { ...request.headers, 'x-forwarded-for': `10.${next >> 16 & 255}.${next >> 8 & 255}.${next & 255}` } };
    },
  }];
}

/** Sends the requests to `paths` in turn (answers an answer cache cannot give again, each path asked once a round). */
function rotatingPaths(paths: readonly string[]): autocannon.Request[] {
  let next = 0;
  return [{
    setupRequest: (request) => {
      next = (next + 1) % paths.length;
      return { ...request, path: paths[next]! };
    },
  }];
}

async function run(job: LoadJob): Promise<LoadResult> {
  const result = await autocannon({
    url: job.url,
    method: job.method,
    ...(job.body === undefined ? {} : { body: job.body }),
    headers: job.headers ?? {},
    ...(job.forwardedFor === undefined ? {} : { requests: rotatingClients(job.forwardedFor) }),
    ...(job.paths === undefined ? {} : { requests: rotatingPaths(job.paths) }),
    connections: job.connections,
    pipelining: 1,
    ...(job.amount === undefined ? { duration: job.seconds } : { amount: job.amount }),
    // Samples every 50 ms so that a short run stops close to its duration (autocannon stops on a sample tick).
    sampleInt: 50,
  });
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    requests: result.requests.total,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    refused: result.statusCodeStats?.['429']?.count ?? 0,
    errors: result.errors + result.timeouts,
  };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const answer = await run(JSON.parse(line) as LoadJob).catch((error: unknown) => ({ error: String(error) }));
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
