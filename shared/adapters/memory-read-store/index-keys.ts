/**
 * How the in-memory store files documents in its field indexes, and which filter conditions an index can narrow:
 * the keys of a document (its value, or each element of a multikey field) and the keys a condition asks for.
 */
export type IndexKey = string | number | boolean;

/** The keys a document is filed under in an index of the field at `steps`, or undefined when it cannot be filed (always a candidate). */
export function keysOf(doc: object, steps: string[], multikey: boolean): readonly IndexKey[] | undefined {
  if (!multikey) {
    const key = indexKey(doc, steps);
    return key === undefined ? undefined : [key];
  }
  const value = valueAt(doc, steps);
  if (isIndexKey(value)) return [value];
  // Absent or empty: no key, and no condition the index narrows by (an equality, `$all`, a prefix) can match it.
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return [];
  // Only an array of plain keys is filed; anything else (nested arrays, documents, null) stays a candidate.
  return Array.isArray(value) && value.every(isIndexKey) ? [...new Set(value)] : undefined;
}

/** The elements of the multikey field at `steps` (empty when it holds none). */
export function elementKeys(doc: object, steps: string[]): readonly unknown[] {
  const value = valueAt(doc, steps);
  return Array.isArray(value) ? value : [value];
}

function valueAt(doc: object, steps: string[]): unknown {
  let current: unknown = doc;
  for (const step of steps) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

export const isAll = (condition: unknown): boolean =>
  condition !== null && typeof condition === 'object' && !Array.isArray(condition) && '$all' in condition;

/** The values of `{$all: [...]}` (at least one, each a plain key), or undefined. */
export function allKeys(condition: unknown): IndexKey[] | undefined {
  if (!isAll(condition) || Object.keys(condition as object).length !== 1) return undefined;
  const { $all } = condition as { $all: unknown };
  return Array.isArray($all) && $all.length > 0 && $all.every(isIndexKey) ? $all : undefined;
}

/** The literal prefix of `{$regex: '^literal'}` (metacharacters escaped by a backslash), or undefined. */
export function literalPrefix(condition: unknown): string | undefined {
  if (condition === null || typeof condition !== 'object' || Object.keys(condition).length !== 1) return undefined;
  const { $regex } = condition as { $regex?: unknown };
  if (typeof $regex !== 'string' || !$regex.startsWith('^')) return undefined;
  const literal = /^\^((?:\\.|[^\\.*+?^${}()|[\]])*)$/u.exec($regex);
  return literal ? literal[1]!.replace(/\\(.)/gu, '$1') : undefined;
}

export function indexKey(doc: object, steps: string[]): IndexKey | undefined {
  let current: unknown = doc;
  for (const step of steps) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return isIndexKey(current) ? current : undefined;
}

/** The values a top-level condition requires by equality (`v`, `{$eq: v}`, `{$in: [...]}`), or undefined. */
export function equalityKeys(condition: unknown): IndexKey[] | undefined {
  if (isIndexKey(condition)) return [condition];
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return undefined;
  if (Object.keys(condition).length !== 1) return undefined;
  const { $eq, $in } = condition as { $eq?: unknown; $in?: unknown };
  if (isIndexKey($eq)) return [$eq];
  if (Array.isArray($in) && $in.every(isIndexKey)) return $in;
  return undefined;
}

function isIndexKey(value: unknown): value is IndexKey {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));
}
