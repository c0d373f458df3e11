/** Money checks shared by the deciders; amounts are integer cents (shared/money/cents.ts converts at the edge). */
import { invalid, type DomainError } from './domain-error.ts';

/** A catalogue price: a positive integer number of cents. */
export function badPrice(field: string, cents: number): DomainError | null {
  return Number.isInteger(cents) && cents > 0 ? null : invalid(`${field} must be a positive whole number of cents, got ${cents}`);
}

/** A surcharge (option, accessory): zero or a positive integer number of cents. */
export function badSurcharge(field: string, cents: number): DomainError | null {
  return Number.isInteger(cents) && cents >= 0 ? null : invalid(`${field} must be zero or a positive whole number of cents, got ${cents}`);
}
