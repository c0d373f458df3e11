/**
 * Whether a declared index serves a query, by the ESR rule (equality, sort, range): read from its start, the
 * index's key holds one or more fields the query fixes by equality (a value, `$eq`, `$in`, `$all`), then either
 * the whole sort in order (every direction the same as the index's, or every one reversed) or nothing of it, then
 * at most one range field (`$gt`..`$lte`, or a `$regex` anchored on a literal prefix). Every other condition filters
 * what the index returns. To prove that the scan is bounded by what the query selects, and not only by the
 * language, the prefix used must hold one of the query's narrowing fields whenever it has one: a field other than
 * `lang` and other than an equality on a boolean; a query with none must get its order from the index (a page
 * is then a walk, not a sort of a whole language). `_id` is always indexed; `$or` needs each clause served.
 */
import type { Filter, Sort } from '../../shared/ports/read-store.ts';
import type { ReadIndex } from '../../shared/read-model/documents/indexes.ts';

export interface QueryShape { filter: Filter; sort?: Sort }

type Kind = 'equality' | 'range' | 'filtered';

const ID_INDEX: ReadIndex = { key: { _id: 1 } };

export function servingIndex(indexes: readonly ReadIndex[], query: QueryShape): ReadIndex | undefined {
  const clauses = query.filter['$or'];
  if (Array.isArray(clauses) && Object.keys(query.filter).length === 1) {
    const served = clauses.map((clause) => servingIndex(indexes, { filter: clause as Filter, sort: query.sort }));
    return served.every(Boolean) ? served[0] : undefined;
  }
  return [ID_INDEX, ...indexes].find((index) => serves(index, query));
}

function serves(index: ReadIndex, { filter, sort = {} }: QueryShape): boolean {
  const keys = Object.entries(index.key);
  const kinds = new Map(Object.entries(filter).map(([field, condition]) => [field, kindOf(condition)]));
  let at = 0;
  while (at < keys.length && kinds.get(keys[at]![0]) === 'equality') at += 1;
  if (at === 0) return false;
  const sortKeys = Object.entries(sort).filter(([field]) => kinds.get(field) !== 'equality');
  const sorted = sortKeys.length === 0 || providesSort(keys.slice(at), sortKeys);
  if (sortKeys.length > 0 && sorted) at += sortKeys.length;
  if (at < keys.length && kinds.get(keys[at]![0]) === 'range') at += 1;
  const used = new Set(keys.slice(0, at).map(([field]) => field));
  const narrowing = [...kinds].filter(([field, kind]) => kind !== 'filtered' && isNarrowing(field, filter[field]));
  // Nothing narrows it (a whole language): the index must then give the order, or every document would be sorted.
  return narrowing.length === 0 ? sorted : narrowing.some(([field]) => used.has(field));
}

function providesSort(keys: [string, number][], sortKeys: [string, number][]): boolean {
  if (keys.length < sortKeys.length) return false;
  const direction = keys[0]![1] * sortKeys[0]![1];
  return sortKeys.every(([field, order], i) => keys[i]![0] === field && keys[i]![1] * order === direction);
}

function isNarrowing(field: string, condition: unknown): boolean {
  return field !== 'lang' && typeof condition !== 'boolean';
}

function kindOf(condition: unknown): Kind {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return 'equality';
  const operators = Object.keys(condition);
  if (operators.every((operator) => ['$eq', '$in', '$all'].includes(operator))) return 'equality';
  if (operators.every((operator) => ['$gt', '$gte', '$lt', '$lte'].includes(operator))) return 'range';
  const { $regex } = condition as { $regex?: unknown };
  if (operators.length === 1 && typeof $regex === 'string' && /^\^(?:\\.|[^\\.*+?^${}()|[\]])+$/.test($regex)) return 'range';
  return 'filtered';
}
