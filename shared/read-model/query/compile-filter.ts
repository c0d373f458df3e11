/**
 * One predicate per filter: the fast compiled path where it can decide, mingo for the rest. The filter is checked
 * for script operators first, and a filter mingo cannot compile throws here, before any document is read.
 */
import type { Filter } from '../../ports/read-store.ts';
import { assertSafeFilter } from './filter-guard.ts';
import { compileFastFilter } from './fast-filter.ts';
import { compileMingo } from './safe-mingo.ts';

export type DocPredicate = (doc: object) => boolean;

const matchAll: DocPredicate = () => true;

export function compileFilter(filter: Filter): DocPredicate {
  assertSafeFilter(filter);
  if (Object.keys(filter).length === 0) return matchAll;
  const fast = compileFastFilter(filter);
  if (!fast) return compileMingo(filter);
  let mingo: DocPredicate | undefined;
  return (doc) => fast(doc) ?? (mingo ??= compileMingo(filter))(doc);
}
