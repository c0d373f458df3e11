/**
 * A projection's `Touches.filter` compiled once into a predicate over the documents a batch holds in memory. The
 * filters projections write are equalities on a dotted path, often through an array of sub-documents
 * (`{ 'member_prices.reference': 'X' }`); testing those with mingo, for every document of the batch and every event,
 * was a tenth of a rebuild. They are matched directly here under MongoDB's rules (an array on the way matches when
 * one of its elements does; an array at the end, when it holds the value), and mingo, the reference, decides
 * everything else: other filters, and documents with an array directly inside an array on the path.
 */
import { Query } from 'mingo';
import type { Filter } from '../shared/ports/read-store.ts';

export type DocMatcher = (doc: object) => boolean;

/** `true`/`false`, or `undefined` when mingo must decide for this document. */
type FastMatcher = (doc: object) => boolean | undefined;

type Scalar = string | number | boolean;

export function compileMatcher(filter: Filter): DocMatcher {
  let query: Query | undefined;
  // Compiled on first need: most filters never need it.
  const byMingo: DocMatcher = (doc) => (query ??= new Query(filter)).test(doc as Record<string, unknown>);
  const fast = compileFastMatcher(filter);
  if (!fast) return byMingo;
  return (doc) => fast(doc) ?? byMingo(doc);
}

/** The direct matcher of a filter made of path equalities to a string, number or boolean; null for any other. */
export function compileFastMatcher(filter: Filter): FastMatcher | null {
  const parts: { steps: string[]; expected: Scalar }[] = [];
  for (const [path, expected] of Object.entries(filter)) {
    const steps = path.split('.');
    // `$` operators, empty steps and array indexes (`a.0`) are mingo's.
    if (steps.some((step) => step === '' || step.startsWith('$') || /^\d+$/.test(step))) return null;
    if (!isScalar(expected)) return null;
    parts.push({ steps, expected });
  }
  if (parts.length === 0) return null;
  return (doc) => {
    let unknown = false;
    for (const { steps, expected } of parts) {
      const result = reaches(doc, steps, 0, expected);
      if (result === false) return false;
      if (result === undefined) unknown = true;
    }
    return unknown ? undefined : true;
  };
}

function reaches(value: unknown, steps: readonly string[], at: number, expected: Scalar): boolean | undefined {
  if (at === steps.length) {
    if (!Array.isArray(value)) return value === expected;
    if (value.includes(expected)) return true;
    return value.some(Array.isArray) ? undefined : false;
  }
  if (Array.isArray(value)) {
    let unknown = false;
    for (const element of value) {
      if (Array.isArray(element)) {
        unknown = true;
        continue;
      }
      if (element === null || typeof element !== 'object') continue;
      const result = reaches((element as Record<string, unknown>)[steps[at]!], steps, at + 1, expected);
      if (result === true) return true;
      if (result === undefined) unknown = true;
    }
    return unknown ? undefined : false;
  }
  if (value === null || typeof value !== 'object') return false;
  return reaches((value as Record<string, unknown>)[steps[at]!], steps, at + 1, expected);
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
