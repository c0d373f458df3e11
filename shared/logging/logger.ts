/**
 * Structured logs (pino) on stderr, so stdout stays free for command output. Lines are written in batches, one write
 * every few milliseconds, and none is lost when the process exits (buffered-destination.ts, issue 42).
 */
import { pino, type Logger } from 'pino';
import { BufferedDestination } from './buffered-destination.ts';

export type { Logger };

/** pino's number for `info`, the level of the lines `infoLineWriter` writes. */
const INFO = 30;

/** The destination and serialized bindings of each logger `createLogger` made, for `infoLineWriter`. */
const plainLoggers = new WeakMap<Logger, { destination: BufferedDestination; bindings: string }>();

/** `destination`: a file descriptor or a path (benchmarks write to /dev/null); stderr by default. */
export function createLogger(level: string, name: string, destination: number | string = 2): Logger {
  const buffered = new BufferedDestination(destination);
  const logger = pino(
    { name, level, redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]'], remove: true } },
    buffered,
  );
  // The bindings as pino serializes them into each line (pid, hostname, name), under the symbol pino exports for this.
  const bindings = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  if (typeof bindings === 'string') plainLoggers.set(logger, { destination: buffered, bindings });
  return logger;
}

/**
 * Writes info lines whose fields are already serialized (`"a":1,"b":"x"`, JSON members) with the message `msg`, for a
 * line written on every request: the line a logger made by `createLogger` would write for them, in the same order
 * (level, time, bindings, fields, msg) to the same destination, without pino's general serializer, which cost the
 * request log about 5 µs a line in a busy server (bench/README.md, issue 42). Another logger, whose formatting is not
 * known here (a test's pino on a stream, a child), gets the fields through its own `info`.
 */
export function infoLineWriter(logger: Logger, msg: string): (fields: string) => void {
  const plain = plainLoggers.get(logger);
  if (plain === undefined) {
    return (fields) => {
      if (logger.isLevelEnabled('info')) logger.info(JSON.parse(`{${fields}}`) as object, msg);
    };
  }
  const { destination, bindings } = plain;
  const tail = `,"msg":${JSON.stringify(msg)}}\n`;
  // The head changes once a millisecond: lines that come faster share it (the time's text costs a number formatting).
  let headTime = -1;
  let head = '';
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    const now = Date.now();
    if (now !== headTime) {
      headTime = now;
      head = `{"level":${INFO},"time":${now}${bindings},`;
    }
    destination.write(head + fields + tail);
  };
}
