/**
 * Progress of the long audit commands on stderr: a bar with events/s and ETA on a terminal, and a plain line every
 * few seconds otherwise (a log file wants lines, not redraws). Where the number of events to come is known (the
 * SQLite file counts them, an export file has one per line) progress is counted in events; otherwise it is the
 * share of the span of positions still to cover, labelled as positions: EventStoreDB positions are log offsets,
 * not event counts, so `head - from` says nothing of how many events lie between.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { RebuildProgress } from '../../shared/read-model/projections/rebuild.ts';

interface Progress {
  /** `events` handled so far; `position` of the last one. */
  update(events: number, position: number): void;
  stop(): void;
}

/** What the work is measured against: a known number of events, or the positions from `from` to `head`. */
export type ProgressScale = { events: number } | { from: number; head: number };

const LINE_EVERY_MS = 2_000;

interface ProgressOutput {
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

/** Where the work stands on its scale: `done` of `total` units, and how to name them. */
function measure(scale: ProgressScale, events: number, position: number) {
  if ('events' in scale) return { done: events, total: scale.events, where: `${events}/${scale.events} events` };
  const total = Math.max(scale.head - scale.from, 0);
  return { done: Math.min(Math.max(position - scale.from, 0), total), total, where: `position ${position} of ${scale.head}, ${events} events` };
}

export function startProgress(label: string, scale: ProgressScale, output: ProgressOutput): Progress {
  const started = Date.now();
  const seconds = () => Math.max((Date.now() - started) / 1000, 0.001);
  const rate = (events: number) => Math.round(events / seconds());
  const stream = output.terminal;
  if (stream) {
    const unit = 'events' in scale ? '{value}/{total} events' : 'position {position} | {events} events';
    const bar = new SingleBar({
      stream, format: `${label} [{bar}] {percentage}% | ${unit} | {rate} events/s | ETA {eta_formatted}`, etaBuffer: 50,
    }, Presets.shades_classic);
    bar.start(measure(scale, 0, 'events' in scale ? 0 : scale.from).total, 0, { rate: 0, position: '', events: 0 });
    return {
      update: (events, position) => bar.update(measure(scale, events, position).done, { rate: rate(events), position, events }),
      stop: () => bar.stop(),
    };
  }
  let lastLine = started;
  let last = { events: 0, position: 'events' in scale ? 0 : scale.from };
  const line = () => {
    const { done, total, where } = measure(scale, last.events, last.position);
    // The ETA extrapolates the pace on the scale itself (events, or positions covered per second).
    const pace = done / seconds();
    const eta = pace > 0 ? Math.ceil((total - done) / pace) : 0;
    output.line(`${label}: ${where}, ${rate(last.events)} events/s, ETA ${eta} s`);
  };
  return {
    update: (events, position) => {
      last = { events, position };
      if (Date.now() - lastLine < LINE_EVERY_MS) return;
      lastLine = Date.now();
      line();
    },
    stop: () => {
      if (measure(scale, 0, 0).total > 0) line();
    },
  };
}

/** The projector's rebuild progress drawn the same way, on its span of positions, started on the first report. */
export function rebuildProgress(label: string, output: ProgressOutput) {
  let progress: Progress | undefined;
  return {
    onProgress: ({ position, head, events }: RebuildProgress) => {
      progress ??= startProgress(label, { from: 0, head }, output);
      progress.update(events, position);
    },
    stop: () => progress?.stop(),
  };
}
