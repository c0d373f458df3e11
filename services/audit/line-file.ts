/**
 * Lines written with back-pressure, every one of which must arrive: what `watchcat export` writes, to `--out FILE`
 * or to stdout. A write that fails (a reader gone: EPIPE; a full disk: ENOSPC) fails the export, which then names how
 * far it got, instead of reporting a count and a head hash its output does not hold.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

export interface LineSink {
  write(line: string): void | Promise<void>;
  end(): Promise<void>;
}

let stdoutRequired = false;
/** Whether stdout is being written lines that must all arrive: its errors are then the command's (services/cli/watchcat.ts). */
export const stdoutMustArrive = (): boolean => stdoutRequired;

/** Lines to `stream`, its first error kept and thrown by the next write or the end; `finish` ends it. */
function linesTo(stream: NodeJS.WritableStream, finish: () => Promise<void>, release: () => void = () => undefined): LineSink {
  let failure: Error | undefined;
  const noted = (error: Error | null | undefined) => { failure ??= error ?? undefined; };
  stream.on('error', noted);
  const failed = () => {
    if (failure) throw failure;
  };
  return {
    write: async (line) => {
      failed();
      if (!stream.write(`${line}\n`, noted)) await once(stream, 'drain');
      failed();
    },
    end: async () => {
      try {
        await finish();
        failed();
      } finally {
        stream.off('error', noted);
        release();
      }
    },
  };
}

export function lineFile(file: string): LineSink {
  const stream = createWriteStream(file, 'utf8');
  return linesTo(stream, async () => {
    stream.end();
    await finished(stream);
  });
}

/** Lines to stdout, which is not ended: the end waits until everything written was handed on. */
export function lineStream(stream: NodeJS.WritableStream): LineSink {
  stdoutRequired = true;
  return linesTo(
    stream,
    () => new Promise<void>((resolve, reject) => stream.write('', (error) => (error ? reject(error) : resolve()))),
    () => { stdoutRequired = false; },
  );
}
