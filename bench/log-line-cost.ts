/**
 * What one request log line costs the process that writes it (issue 42, item 8): `node --import tsx
 * bench/log-line-cost.ts [/dev/null|stderr] [rounds]`. The request log's line (read-api/middleware/request-log.ts)
 * logged through `createLogger`'s destination (batched writes, shared/logging/buffered-destination.ts) against a
 * synchronous pino destination (a write per line, `createLogger` before issue 42); 1 and 4 lines per turn of the
 * event loop (one request per turn on a quiet server, several on a busy one). This process's CPU time per line,
 * the turn's own cost included in both; medians of the rounds. For stderr, run it as `... stderr 2>&1 >/dev/null |
 * cat >/dev/null` so that the lines go to a pipe with a reader, as to a log collector.
 */
import { pino, type Logger } from 'pino';
import { createLogger } from '../shared/logging/logger.ts';
import { median, round } from './report/stats.ts';

const [target = '/dev/null', roundsArg = '5'] = process.argv.slice(2);
const destination = target === 'stderr' ? 2 : target;
const LINES = 40_000;
const loggers: Record<string, () => Logger> = {
  batched: () => createLogger('info', 'bench', destination),
  'sync (before)': () => pino({ level: 'info', name: 'bench' }, pino.destination(destination)),
};
const line = { method: 'GET', path: '/api/public/catalogue/RG-200', status: 200, ms: 1.23, request_id: '7f7c3e0e-5f1a-4b8e-9a51-0c6d2d9f3b11' };

async function cpuPerLine(logger: Logger, perTurn: number): Promise<number> {
  const before = process.cpuUsage();
  for (let turn = 0; turn < LINES / perTurn; turn += 1) {
    for (let i = 0; i < perTurn; i += 1) logger.info(line, 'request');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / LINES;
}

const samples = new Map<string, number[]>();
for (let index = 0; index < Number(roundsArg); index += 1) {
  for (const perTurn of [1, 4]) {
    for (const [name, make] of Object.entries(loggers)) {
      const key = `${name}, ${perTurn} per turn`;
      samples.set(key, [...(samples.get(key) ?? []), await cpuPerLine(make(), perTurn)]);
    }
  }
}
const figures = Object.fromEntries([...samples].map(([key, values]) => [key, round(median(values), 2)]));
process.stdout.write(`${JSON.stringify({ target, us_per_line: figures })}\n`);
