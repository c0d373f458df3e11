/**
 * Moments typed on the command line: ISO 8601 timestamps with their offset (`Z` or `±hh:mm`), or a date alone (UTC
 * midnight), to milliseconds since the epoch; a usage error otherwise. A time without an offset would be read in the
 * auditor's own time zone, so the same command would answer differently on two machines; and a day or an hour that
 * does not exist (2025-02-30, 24:00) is refused, not rolled over into another.
 */
import { InvalidArgumentError } from 'commander';

const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

export function parseMoment(value: string): number {
  const text = value.trim();
  const fields = MOMENT.exec(text);
  const at = fields && exists(fields.slice(1).map((field) => Number(field ?? 0))) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new InvalidArgumentError('expected an ISO 8601 timestamp, e.g. 2025-03-01T12:00:00Z (with Z or an offset; a date alone is UTC midnight)');
  return at;
}

/** Whether the calendar has that day and the clock that time (the offset aside: it only moves the moment). */
function exists(fields: number[]): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = fields;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // The same fields back: a day, an hour or a minute past its range rolls over into the next.
  const back = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
  return back.join() === [year, month, day, hour, minute, second].join();
}
