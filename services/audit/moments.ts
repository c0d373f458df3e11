/** Moments typed on the command line: ISO 8601 timestamps, to milliseconds since the epoch (a usage error otherwise). */
import { InvalidArgumentError } from 'commander';

export function parseMoment(value: string): number {
  const at = Date.parse(value.trim());
  if (Number.isNaN(at)) throw new InvalidArgumentError('expected an ISO 8601 timestamp, e.g. 2025-03-01T12:00:00Z');
  return at;
}
