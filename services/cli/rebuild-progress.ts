/**
 * Progress of a rebuild on stderr: a bar on a terminal, plain lines otherwise (one per tenth of the history,
 * since a bar's redraws would only clutter a log file). The share done is the share of the span of positions
 * (log offsets on EventStoreDB, so roughly a share of the bytes); the speed counts events.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { RebuildProgress } from '../../shared/read-model/projections/rebuild.ts';

interface ProgressRenderer {
  onProgress(progress: RebuildProgress): void;
  stop(): void;
}

export function rebuildProgress(stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr): ProgressRenderer {
  return stream.isTTY ? barRenderer(stream) : lineRenderer(stream);
}

function barRenderer(stream: NodeJS.WritableStream): ProgressRenderer {
  const bar = new SingleBar(
    { stream: stream as NodeJS.WriteStream, format: 'rebuild [{bar}] {percentage}% | position {value}/{total} | {speed} events/s', clearOnComplete: false },
    Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress({ position, head, eventsPerSecond }) {
      const speed = Math.round(eventsPerSecond);
      if (!started) bar.start(head, position, { speed });
      started = true;
      bar.setTotal(head);
      bar.update(position, { speed });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function lineRenderer(stream: NodeJS.WritableStream): ProgressRenderer {
  let nextTenth = 1;
  return {
    onProgress({ position, head, eventsPerSecond }) {
      const tenths = head > 0 ? Math.floor((position / head) * 10) : 10;
      if (tenths < nextTenth) return;
      nextTenth = tenths + 1;
      stream.write(`rebuild ${Math.min(tenths * 10, 100)}% (position ${position}/${head}, ${Math.round(eventsPerSecond)} events/s)\n`);
    },
    stop() {},
  };
}
