/** A file written a line at a time, with back-pressure: what `watchcat export --out FILE` writes its lines to. */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

export interface LineSink {
  write(line: string): void | Promise<void>;
  end(): Promise<void>;
}

export function lineFile(file: string): LineSink {
  const stream = createWriteStream(file, 'utf8');
  return {
    write: async (line) => {
      if (!stream.write(`${line}\n`)) await once(stream, 'drain');
    },
    end: async () => {
      stream.end();
      await finished(stream);
    },
  };
}
