/**
 * Orders issues as pydantic lists them: a model's fields in schema order, a record's entries in the order they
 * were sent; only the first issue of a field is kept, as pydantic stops at a field's first failed constraint
 * (ajv checks lengths before the pattern, as pydantic does). Of two issues at one field the one found first wins,
 * so a parsing issue, found before ajv's, wins over ajv's `missing` for the value that could not be parsed.
 *
 * Only the first `room` issues are kept in order (an answer lists a bounded number, issue-bound.ts); the others
 * are only counted. The work is linear in the issues: each name's place is looked up in a map built once per
 * object, and the kept ones are a bounded buffer, never a sort of the whole list.
 */
import { childSchema, isPlainObject, nonNullSchema, type JsonSchema, type Path } from './request-schema.ts';
import type { ValidationIssue } from './validation-issue.ts';

interface FirstIssues {
  /** At most `room` issues, in pydantic's order, one per field. */
  first: ValidationIssue[];
  /** How many other fields have an issue. */
  rest: number;
}

interface Ranked {
  one: ValidationIssue;
  rank: number[];
  found: number;
}

/** The first `room` issues (locs are paths relative to a part: `schema`, with the values `sent`), one per field. */
export function firstIssues(issues: readonly ValidationIssue[], schema: JsonSchema, sent: unknown, room: number): FirstIssues {
  const places = new Map<object, Map<string, number>>();
  const seen = new Set<string>();
  const kept: Ranked[] = [];
  issues.forEach((one, found) => {
    const key = JSON.stringify(one.loc);
    if (seen.has(key)) return;
    seen.add(key);
    const ranked = { one, rank: rankOf(one.loc as Path, schema, sent, places), found };
    const last = kept.at(-1);
    if (kept.length >= room && (last === undefined || compare(ranked, last) >= 0)) return;
    kept.splice(insertionPoint(kept, ranked), 0, ranked);
    if (kept.length > room) kept.pop();
  });
  return { first: kept.map(({ one }) => one), rest: seen.size - kept.length };
}

function insertionPoint(kept: readonly Ranked[], ranked: Ranked): number {
  let low = 0;
  let high = kept.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(kept[middle] as Ranked, ranked) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function rankOf(path: Path, schema: JsonSchema, sent: unknown, places: Map<object, Map<string, number>>): number[] {
  const rank: number[] = [];
  let level: JsonSchema | undefined = schema;
  let value = sent;
  for (const key of path) {
    const properties = level && nonNullSchema(level).properties;
    const names = properties ?? (isPlainObject(value) ? value : undefined);
    rank.push(names ? placeOf(names, key, places) : -1);
    level = level && childSchema(level, key);
    value = isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return rank;
}

/** The place of `key` among the keys of `names`, -1 if absent; each object's keys are mapped once. */
function placeOf(names: object, key: string, places: Map<object, Map<string, number>>): number {
  let map = places.get(names);
  if (!map) places.set(names, (map = new Map(Object.keys(names).map((name, i) => [name, i]))));
  return map.get(key) ?? -1;
}

function compare(a: Ranked, b: Ranked): number {
  for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) {
    const difference = (a.rank[i] as number) - (b.rank[i] as number);
    if (difference !== 0) return difference;
  }
  return a.rank.length - b.rank.length || a.found - b.found;
}
