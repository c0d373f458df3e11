/**
 * A ReadStore wrapper that records every filter and sort document the read API sends, so a test can prove that no
 * request, however hostile, puts an operator of its own choosing (or a script) into a query.
 */
import type { Filter, FindOptions, ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../shared/read-model/documents/documents.ts';

export interface FilterSpy {
  store: ReadStore;
  /** Every `$` key seen in a filter or sort since the spy was made, with an example filter for the message. */
  operators: Map<string, string>;
  /** Every field path seen in a filter or sort. */
  fields: Set<string>;
}

export function spyOnFilters(inner: ReadStore): FilterSpy {
  const operators = new Map<string, string>();
  const fields = new Set<string>();
  const record = (filter: Filter, options?: FindOptions) => {
    const example = JSON.stringify(filter);
    const visit = (value: unknown, depth: number): void => {
      if (value === null || typeof value !== 'object' || value instanceof RegExp) return;
      if (Array.isArray(value)) {
        for (const item of value) visit(item, depth);
        return;
      }
      for (const [key, inner] of Object.entries(value)) {
        if (key.startsWith('$')) operators.set(key, example);
        else if (depth === 0) fields.add(key);
        visit(inner, key.startsWith('$') ? depth : depth + 1);
      }
    };
    visit(filter, 0);
    for (const key of Object.keys(options?.sort ?? {})) fields.add(key);
  };
  const store: ReadStore = {
    ...inner,
    find: <D extends StoredDoc>(collection: ReadCollection, filter: Filter, options?: FindOptions) => {
      record(filter, options);
      return inner.find<D>(collection, filter, options);
    },
    count: (collection, filter) => {
      record(filter);
      return inner.count(collection, filter);
    },
    // A request's reads come through the spy too (each reads the live generation of its moment).
    snapshot: async () => ({ ...store, control: await inner.readControl() }),
  };
  return { store, operators, fields };
}
