/** Structured logs (pino) on stderr, so stdout stays free for command output. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name: string): Logger {
  return pino({ name, level, redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], remove: true } }, pino.destination(2));
}
