/** Parsers for CLI arguments; a bad value is a usage error (commander's `InvalidArgumentError`, exit code 2). */
import { InvalidArgumentError } from 'commander';
import { eurosToCents } from '../../shared/money/cents.ts';

/** Serial numbers and references are upper-case identifiers; people type them in any case. */
export function identifier(value: string): string {
  return value.trim().toUpperCase();
}

export function year(value: string): number {
  if (!/^\d{4}$/.test(value.trim())) throw new InvalidArgumentError('expected a four-digit year, e.g. 2024');
  return Number(value);
}

/**
 * A catalogue price: `12500`, `12500.50` or `12 500,50` euros to integer cents. Refused here in euros, as typed, rather
 * than by the domain, whose rule speaks of cents.
 */
export function euros(value: string): number {
  const normalised = value.replace(/[\s_]/g, '').replace(',', '.');
  const cents = /^\d+(\.\d{1,2})?$/.test(normalised) ? eurosToCents(Number(normalised)) : 0;
  if (cents <= 0) throw new InvalidArgumentError('expected a price in euros above 0, with at most two decimals, e.g. 12500.50');
  return cents;
}
