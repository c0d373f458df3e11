/**
 * Projection rebuild throughput over a long synthetic history against the limit, a bare loop reading and decoding
 * the same events from the same file. Each run is a fresh process (its peak RSS is its own); bare and rebuild runs
 * alternate, and the figures are medians. The adapter's own read loop is measured once, to show where time goes.
 */
import { eventMixOf, syntheticHistoryFile } from '../fixtures/synthetic-history.ts';
import { median, ratio, round } from '../report/stats.ts';
import { runJsonChild } from './child-json.ts';
import type { ProjectionMode, ProjectionRun } from './projection-process.ts';

export interface ProjectionSettings { events: number; rounds: number }

export interface ProjectionFigures {
  events: number;
  mix: Record<string, number>;
  rebuild_events_per_s: number;
  bare_events_per_s: number;
  adapter_read_events_per_s: number;
  rebuild_vs_bare: number;
  rebuild_seconds: number;
  rebuild_peak_rss_mb: number;
  bare_peak_rss_mb: number;
}

const PROCESS = new URL('./projection-process.ts', import.meta.url);

export async function benchProjection(settings: ProjectionSettings): Promise<ProjectionFigures> {
  const file = await syntheticHistoryFile(settings.events);
  const runs = async (mode: ProjectionMode) => runJsonChild<ProjectionRun>(PROCESS, [mode, file]);
  const bare: ProjectionRun[] = [];
  const rebuilt: ProjectionRun[] = [];
  // A first bare read warms the page cache, so the first measured run does not pay the disk.
  await runs('bare');
  for (let index = 0; index < settings.rounds; index += 1) {
    bare.push(await runs('bare'));
    rebuilt.push(await runs('rebuild'));
  }
  const adapter = await runs('adapter');
  const rebuildRate = median(rebuilt.map((run) => run.eventsPerSecond));
  const bareRate = median(bare.map((run) => run.eventsPerSecond));
  return {
    events: rebuilt[0]?.events ?? 0,
    mix: eventMixOf(file),
    rebuild_events_per_s: round(rebuildRate),
    bare_events_per_s: round(bareRate),
    adapter_read_events_per_s: round(adapter.eventsPerSecond),
    rebuild_vs_bare: ratio(rebuildRate, bareRate),
    rebuild_seconds: round(median(rebuilt.map((run) => run.seconds)), 2),
    rebuild_peak_rss_mb: round(Math.max(...rebuilt.map((run) => run.peakRssMb))),
    bare_peak_rss_mb: round(Math.max(...bare.map((run) => run.peakRssMb))),
  };
}
