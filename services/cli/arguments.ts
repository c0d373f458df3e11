/** Parsers for CLI arguments; a bad value is a usage error (commander's `InvalidArgumentError`, exit code 2). */
import { InvalidArgumentError } from 'commander';
import { canonicalId, MAX_PRICE_CENTS } from '../../shared/events/index.ts';
import { centsToEuros, eurosToCents } from '../../shared/money/cents.ts';

/** Serial numbers and references, read as the events hold them. */
export const identifier = canonicalId;

/** Seconds to wait for something, 1 to 3600. */
export function seconds(value: string): number {
  if (!/^\d{1,4}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 3600) throw new InvalidArgumentError('expected whole seconds, 1 to 3600');
  return Number(value);
}

export function year(value: string): number {
  if (!/^\d{4}$/.test(value.trim())) throw new InvalidArgumentError('expected a four-digit year, e.g. 2024');
  return Number(value);
}

const PRICE_TEXT = /^\d+(\.\d{1,2})?$/;

/**
 * A catalogue price typed in euros, `12500` or `12500.50`, to integer cents: written as the JSON number the admin API
 * and the watch file take. `12 500` or `12,5` is refused saying how to write it rather than read as a guess (issue 44,
 * item 5); refused in euros, as typed, rather than by the domain, whose rule speaks of cents.
 */
export function euros(value: string): number {
  const typed = value.trim();
  const highest = centsToEuros(MAX_PRICE_CENTS);
  const expected = `expected a price in euros above 0 and at most ${highest}, with at most two decimals, e.g. 12500.50`;
  if (!PRICE_TEXT.test(typed)) {
    const plain = typed.replace(/[\s_\u00a0\u202f]/gu, '').replace(',', '.');
    if (!PRICE_TEXT.test(plain)) throw new InvalidArgumentError(expected);
    throw new InvalidArgumentError(`write ${plain}: a price in euros is a plain number, without spaces or separators, with a point before the decimals`);
  }
  const cents = eurosToCents(Number(typed));
  if (cents <= 0 || cents > MAX_PRICE_CENTS) throw new InvalidArgumentError(expected);
  return cents;
}
