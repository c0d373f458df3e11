/**
 * The auditors' filters of `watchcat history`: a time window on `occurred_at` (both ends included) and one
 * correlation id, which gathers every event one command or one import caused.
 */
import type { Command } from 'commander';
import type { RecordedEvent } from '../../shared/ports/event-store.ts';
import { parseMoment } from './moments.ts';

export interface HistoryFilterOptions {
  /** Milliseconds since the epoch. */
  since?: number;
  until?: number;
  correlation?: string;
}

export function addHistoryFilterOptions(command: Command): Command {
  return command
    .option('--since <time>', 'only events that occurred at or after this ISO 8601 time', parseMoment)
    .option('--until <time>', 'only events that occurred at or before this ISO 8601 time', parseMoment)
    .option('--correlation <id>', 'only events of this correlation id');
}

export function historyFilter({ since, until, correlation }: HistoryFilterOptions): (event: RecordedEvent) => boolean {
  return (event) => {
    if (correlation !== undefined && event.metadata.correlation_id !== correlation) return false;
    if (since === undefined && until === undefined) return true;
    const at = Date.parse(event.metadata.occurred_at);
    return (since === undefined || at >= since) && (until === undefined || at <= until);
  };
}
