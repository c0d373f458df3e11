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

/** `12500`, `12500.50` or `12 500,50` euros to integer cents. */
export function euros(value: string): number {
  const normalised = value.replace(/[\s_]/g, '').replace(',', '.');
  if (!/^\d+(\.\d{1,2})?$/.test(normalised)) throw new InvalidArgumentError('expected an amount in euros with at most two decimals, e.g. 12500.50');
  return eurosToCents(Number(normalised));
}
