/**
 * Where the logs go (issue 42: a write per line cost the read API 10 to 18 µs per request log line, most of it the
 * system call). A line logged when nothing was written for `FLUSH_MS` is written at once: a quiet process logs as it
 * did. Lines that come faster are kept in memory and written together, by one synchronous write `FLUSH_MS` after the
 * first of them, or at once when `FLUSH_BYTES` are kept or a line comes that long after the first (in a stretch of
 * work that lets no timer run). A busy process makes at most one write per `FLUSH_MS`.
 *
 * Written synchronously, a batch is never half in the air: what is not in the buffer is with the kernel. So the
 * lines still in the buffer are all that a process can lose, and one `exit` listener writes them for every
 * destination: a graceful stop (shared/process/shutdown.ts ends with `process.exit`), a fatal error that exits, an
 * uncaught exception. Only a SIGKILL can lose the lines of its last `FLUSH_MS`. pino's own asynchronous destination
 * (sonic-boom, `sync: false`) was no option: at exit it drops a write still in flight or waiting to retry on a full
 * pipe (test/reliability/log-flush.test.ts lost lines 1 to 155 of 20,000 that way).
 */
import { openSync, writeSync } from 'node:fs';

/** The longest a line waits in memory. */
const FLUSH_MS = 25;
/** Kept past this, lines are written at once. */
const FLUSH_BYTES = 64 * 1024;
/** A full pipe (a slow log collector) answers EAGAIN; the write is tried again after this pause. */
const FULL_PIPE_PAUSE_MS = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** The destinations holding lines not yet written, for the one `exit` listener. */
const unwritten = new Set<BufferedDestination>();
let exitListener = false;

export class BufferedDestination {
  private buffer = '';
  /** When the oldest line kept was logged, and when the last write was made (performance.now()). */
  private firstAt = 0;
  private writtenAt = -Infinity;
  private readonly fd: number;

  /** `target`: a file descriptor (2, stderr), or a path opened for appending, for the life of the process. */
  constructor(target: number | string) {
    this.fd = typeof target === 'string' ? openSync(target, 'a') : target;
    if (!exitListener) {
      exitListener = true;
      process.on('exit', () => {
        for (const destination of unwritten) destination.flushSync();
      });
    }
  }

  /** What pino calls with each line (its newline included). */
  write(line: string): void {
    const now = performance.now();
    if (this.buffer === '') {
      if (now - this.writtenAt >= FLUSH_MS) {
        this.buffer = line;
        this.flushSync();
        return;
      }
      unwritten.add(this);
      this.firstAt = now;
      // Unreferenced: a pending flush does not keep a process alive; its exit writes the lines.
      setTimeout(() => this.flushSync(), FLUSH_MS).unref();
    }
    this.buffer += line;
    if (this.buffer.length >= FLUSH_BYTES || now - this.firstAt >= FLUSH_MS) this.flushSync();
  }

  /** pino's `logger.flush(cb)`. */
  flush(done?: (error?: Error) => void): void {
    try {
      this.flushSync();
      done?.();
    } catch (error) {
      done?.(error as Error);
    }
  }

  /** Writes every line kept, now. */
  flushSync(): void {
    if (this.buffer === '') return;
    let bytes = Buffer.from(this.buffer, 'utf8');
    this.buffer = '';
    unwritten.delete(this);
    this.writtenAt = performance.now();
    while (bytes.length > 0) {
      try {
        bytes = bytes.subarray(writeSync(this.fd, bytes));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A closed stderr (EPIPE) has no one to read the lines: they are dropped rather than crashing the process.
        if (code !== 'EAGAIN' && code !== 'EBUSY') return;
        Atomics.wait(pause, 0, 0, FULL_PIPE_PAUSE_MS);
      }
    }
  }
}
