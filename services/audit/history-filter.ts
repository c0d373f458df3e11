/**
 * The auditors' filters of `watchcat history`: a time window on `occurred_at` (both ends included) and one
 * correlation id, which gathers every event one command or one import caused.
 */
import type { Command } from 'commander';
import type { StoredEvent } from '../../shared/ports/event-store.ts';
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

/** An event whose metadata cannot be read is kept by every filter: it cannot be ruled out, and an auditor must see it. */
export function historyFilter({ since, until, correlation }: HistoryFilterOptions): (event: StoredEvent) => boolean {
  return ({ metadata }) => {
    if (!metadata) return true;
    if (correlation !== undefined && metadata.correlation_id !== correlation) return false;
    if (since === undefined && until === undefined) return true;
    const at = Date.parse(metadata.occurred_at);
    return (since === undefined || at >= since) && (until === undefined || at <= until);
  };
}
