/**
 * Manufacture years: from the first year a watch of the registry can be made to the latest year begun anywhere by a
 * clock. The serial decider and the catalogue file's check (services/import/catalogue-validation.ts) both ask here,
 * so `import --check` cannot pass a year that a registration then refuses halfway through an import.
 */
import { MANUFACTURE_YEAR_BOUNDS } from '../../../shared/events/serial.events.ts';

export const FIRST_MANUFACTURE_YEAR = MANUFACTURE_YEAR_BOUNDS.minimum;

/** The earliest time zone, UTC+14: a new year begins there first. */
const EARLIEST_OFFSET_MS = 14 * 60 * 60 * 1000;

/**
 * The latest year begun anywhere at `now`: a manufacture year after it is in the future wherever the watch was
 * made, and one equal to it is refused nowhere, not even in the first hours of a year in Switzerland.
 */
export function latestYearBegun(now: Date): number {
  return new Date(now.getTime() + EARLIEST_OFFSET_MS).getUTCFullYear();
}

/** Why `year` is no manufacture year when `latest` is the latest year begun: not a whole year from the first, or after `latest`. */
export type ManufactureYearBreach = 'not_a_year' | 'future';

export function manufactureYearBreach(year: number, latest: number): ManufactureYearBreach | null {
  if (!Number.isInteger(year) || year < FIRST_MANUFACTURE_YEAR) return 'not_a_year';
  return year > latest ? 'future' : null;
}

/** What a manufacture year takes when `latest` is the latest year begun. */
export function manufactureYears(latest: number): string {
  return `a whole year from ${FIRST_MANUFACTURE_YEAR} to ${latest}`;
}
