/**
 * Progress of `seed` and `import` on stderr: a bar on a terminal, and one line per phase otherwise (a bar's
 * redraws would only clutter a log file).
 */
import { SingleBar, Presets } from 'cli-progress';
import type { ImportPhase, OnProgress } from '../import/import-progress.ts';

interface ProgressDisplay {
  onProgress: OnProgress;
  stop(): void;
}

export function importProgress(stream: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  if (stream.isTTY) {
    const bar = new SingleBar({ stream, format: '{phase} [{bar}] {value}/{total}', clearOnComplete: false }, Presets.shades_classic);
    let started = false;
    return {
      onProgress: ({ phase, done, total }) => {
        if (!started) bar.start(total, 0, { phase });
        started = true;
        bar.update(done, { phase });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let current: ImportPhase | undefined;
  return {
    onProgress: ({ phase, done, total }) => {
      if (phase === current) return;
      current = phase;
      stream.write(`importing ${phase} (${done}/${total})\n`);
    },
    stop: () => undefined,
  };
}
