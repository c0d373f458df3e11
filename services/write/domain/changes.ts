/** Comparisons that let commands repeating the current state emit nothing (idempotent commands). */

/** Structural equality of event data (plain JSON values), used to skip commands that change nothing. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The fields of `revision` (except `key`) that are set and differ from `current`. */
export function changedFields<T extends object>(revision: T, key: keyof T, current: object): Partial<T> {
  const now = current as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(revision).filter(([field, value]) => field !== key && value !== undefined && !sameData(value, now[field])),
  ) as Partial<T>;
}
