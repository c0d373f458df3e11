/**
 * Progress of the long audit commands on stderr: a bar with events/s and ETA on a terminal, and a plain line every
 * few seconds otherwise (a log file wants lines, not redraws).
 */
import { Presets, SingleBar } from 'cli-progress';
import type { RebuildProgress } from '../../projector/rebuild.ts';

export interface Progress {
  update(done: number): void;
  stop(): void;
}

const LINE_EVERY_MS = 2_000;

export interface ProgressOutput {
  /** Draw a bar on this terminal stream; `undefined` when not on a terminal. */
  terminal?: NodeJS.WriteStream;
  /** Where plain progress lines go otherwise. */
  line(text: string): void;
}

/** The output of a CLI run: the bar on stderr when it is a terminal, lines through the command's notes otherwise. */
export const stderrProgress = (note: (text: string) => void): ProgressOutput => ({
  terminal: process.stderr.isTTY ? process.stderr : undefined,
  line: note,
});

export function startProgress(label: string, total: number, output: ProgressOutput): Progress {
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
  const stream = output.terminal;
  if (stream) {
    const bar = new SingleBar({
      stream, format: `${label} [{bar}] {value}/{total} events | {rate} events/s | ETA {eta_formatted}`, etaBuffer: 50,
    }, Presets.shades_classic);
    bar.start(total, 0, { rate: 0 });
    return { update: (done) => bar.update(done, { rate: rate(done) }), stop: () => bar.stop() };
  }
  let lastLine = started;
  let last = 0;
  const line = (done: number) => {
    const perSecond = rate(done);
    const eta = perSecond > 0 ? Math.ceil((total - done) / perSecond) : 0;
    output.line(`${label}: ${done}/${total} events, ${perSecond} events/s, ETA ${eta} s`);
  };
  return {
    update: (done) => {
      last = done;
      if (Date.now() - lastLine < LINE_EVERY_MS) return;
      lastLine = Date.now();
      line(done);
    },
    stop: () => {
      if (total > 0) line(last);
    },
  };
}

/** The projector's rebuild progress (positions) drawn the same way, started on the first report (the total known). */
export function rebuildProgress(label: string, output: ProgressOutput) {
  let progress: Progress | undefined;
  return {
    onProgress: ({ done, total }: RebuildProgress) => {
      progress ??= startProgress(label, total, output);
      progress.update(done);
    },
    stop: () => progress?.stop(),
  };
}
