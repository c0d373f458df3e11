/**
 * A record's entry under a key that came from outside (an option or accessory code), or undefined. Plain `[key]`
 * and `in` would also find what every object inherits: `constructor` is a valid code.
 */
export function ownEntry<T>(record: Partial<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
