/**
 * Orders issues as pydantic lists them: a model's fields in schema order, a record's entries in the order they
 * were sent; only the first issue of a field is kept, as pydantic stops at a field's first failed constraint
 * (ajv checks lengths before the pattern, as pydantic does). The sort is stable, so a parsing issue, listed
 * before ajv's, wins over ajv's `missing` for the value that could not be parsed and was left out.
 */
import { childSchema, isPlainObject, nonNullSchema, type JsonSchema, type Path } from './request-schema.ts';
import type { ValidationIssue } from './validation-issue.ts';

/** Sorts issues whose locs are paths relative to a part (`schema`, with the values `sent`) and drops repeats. */
export function sortIssues(issues: readonly ValidationIssue[], schema: JsonSchema, sent: unknown): ValidationIssue[] {
  const ranked = issues.map((one) => ({ one, rank: rankOf(one.loc as Path, schema, sent) }));
  ranked.sort((a, b) => compareRanks(a.rank, b.rank));
  const seen = new Set<string>();
  return ranked.flatMap(({ one }) => {
    const key = JSON.stringify(one.loc);
    if (seen.has(key)) return [];
    seen.add(key);
    return [one];
  });
}

function rankOf(path: Path, schema: JsonSchema, sent: unknown): number[] {
  const rank: number[] = [];
  let level: JsonSchema | undefined = schema;
  let value = sent;
  for (const key of path) {
    const properties = level && nonNullSchema(level).properties;
    const names = properties ? Object.keys(properties) : isPlainObject(value) ? Object.keys(value) : [];
    rank.push(names.indexOf(key));
    level = level && childSchema(level, key);
    value = isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return rank;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
