/**
 * Structured logs (pino) on stderr, so stdout stays free for command output. Lines are written in batches, one write
 * every few milliseconds, and none is lost when the process exits (buffered-destination.ts, issue 42).
 */
import { pino, type Logger } from 'pino';
import { BufferedDestination } from './buffered-destination.ts';

export type { Logger };

/** `destination`: a file descriptor or a path (benchmarks write to /dev/null); stderr by default. */
export function createLogger(level: string, name: string, destination: number | string = 2): Logger {
  return pino(
    { name, level, redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], remove: true } },
    new BufferedDestination(destination),
  );
}
