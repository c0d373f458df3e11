/**
 * mingo restricted to the query operators a read filter needs. Script operators (`$where`, `$expr`, `$function`,
 * `$accumulator`, `$jsonSchema`) are not registered and `scriptEnabled` is off, so mingo refuses them even if a
 * filter slipped past the guard.
 */
import { Context } from 'mingo/core';
import { Query } from 'mingo/query';
import * as array from 'mingo/operators/query/array';
import * as comparison from 'mingo/operators/query/comparison';
import * as element from 'mingo/operators/query/element';
import * as logical from 'mingo/operators/query/logical';
import { $mod, $regex } from 'mingo/operators/query/evaluation';
import type { Filter } from '../../ports/read-store.ts';

const context = Context.init({ query: { ...array, ...comparison, ...element, ...logical, $mod, $regex } });

/** Compiles `filter` with mingo; throws on an unknown or disallowed operator. */
export function compileMingo(filter: Filter): (doc: object) => boolean {
  const query = new Query(filter, { context, scriptEnabled: false });
  return (doc) => query.test(doc as Record<string, unknown>);
}
