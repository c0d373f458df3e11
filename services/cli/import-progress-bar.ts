/**
 * Progress of `seed` and `import` on stderr, through both passes (the file checked against the store, then
 * imported: services/import/import-catalogue.ts): a bar on a terminal, and one line per pass and phase otherwise (a
 * bar's redraws would only clutter a log file).
 */
import { SingleBar, Presets } from 'cli-progress';
import type { OnProgress } from '../import/import-progress.ts';

interface ProgressDisplay {
  onProgress: OnProgress;
  stop(): void;
}

export function importProgress(stream: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  if (stream.isTTY) {
    const bar = new SingleBar({ stream, format: '{pass} {phase} [{bar}] {value}/{total}', clearOnComplete: false }, Presets.shades_classic);
    let started = false;
    return {
      onProgress: ({ pass, phase, done, total }) => {
        if (!started) bar.start(total, 0, { pass, phase });
        started = true;
        bar.update(done, { pass, phase });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let current: string | undefined;
  return {
    onProgress: ({ pass, phase, done, total }) => {
      const step = `${pass} ${phase}`;
      if (step === current) return;
      current = step;
      stream.write(`${step} (${done}/${total})\n`);
    },
    stop: () => undefined,
  };
}
