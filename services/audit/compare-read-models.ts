/**
 * Compares two read stores document by document: the live read models against a shadow projected from the history
 * (or any two stores). Key order does not matter (a document back from MongoDB need not keep it); everything else
 * does. Pure over the ReadStore port, so it runs alike on MongoDB and in the embedded server's memory.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../shared/read-model/documents/documents.ts';

interface FieldDifference {
  /** Dotted path inside the document (`collection.name`, `models.0.base_price_cents`). */
  path: string;
  live: unknown;
  shadow: unknown;
}

export type Difference =
  | { collection: ReadCollection; id: string; kind: 'missing_in_live' }
  | { collection: ReadCollection; id: string; kind: 'only_in_live' }
  | { collection: ReadCollection; id: string; kind: 'different'; fields: FieldDifference[] };

/** The read collections the projections write (checkpoints carry times and are compared by position instead). */
const PROJECTED_COLLECTIONS: readonly ReadCollection[] = ['watches', 'collections', 'configurators', 'serials'];

/** Documents compared between two turns of the event loop. */
const COMPARE_SLICE = 500;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Paths where `live` and `shadow` differ, in document order. */
export function fieldDifferences(live: unknown, shadow: unknown, path = '', out: FieldDifference[] = []): FieldDifference[] {
  if (Array.isArray(live) && Array.isArray(shadow)) {
    if (live.length !== shadow.length) out.push({ path: `${path}.length`.replace(/^\./, ''), live: live.length, shadow: shadow.length });
    for (let i = 0; i < Math.min(live.length, shadow.length); i += 1) fieldDifferences(live[i], shadow[i], `${path}.${i}`, out);
  } else if (isPlainObject(live) && isPlainObject(shadow)) {
    for (const key of new Set([...Object.keys(live), ...Object.keys(shadow)])) {
      fieldDifferences(live[key], shadow[key], `${path}.${key}`, out);
    }
  } else if (!Object.is(live, shadow)) {
    out.push({ path: path.replace(/^\./, ''), live, shadow });
  }
  return out;
}

/**
 * Ids in code-unit order. The store already sorts by `_id`, so sorting again only settles any collation difference
 * and costs one pass.
 */
const byIdOrder = (a: StoredDoc, b: StoredDoc) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

async function sortedById(store: ReadStore, collection: ReadCollection): Promise<StoredDoc[]> {
  // A copy: a store may hand out the array it caches.
  return [...(await store.find<StoredDoc>(collection, {}, { sort: { _id: 1 } }))].sort(byIdOrder);
}

/** Every difference between the two stores over `collections`, by collection then id. Empty when they agree. */
export async function compareReadModels(
  live: ReadStore, shadow: ReadStore, collections: readonly ReadCollection[] = PROJECTED_COLLECTIONS,
): Promise<Difference[]> {
  const differences: Difference[] = [];
  for (const collection of collections) {
    const [liveDocs, shadowDocs] = await Promise.all([sortedById(live, collection), sortedById(shadow, collection)]);
    // One walk over both sorted lists: no index of either, so no long pause building one.
    let [l, s] = [0, 0];
    for (let step = 1; l < liveDocs.length || s < shadowDocs.length; step += 1) {
      // Inside a serving process (the embedded audit), let requests in between slices of the comparison.
      if (step % COMPARE_SLICE === 0) await yieldToEventLoop();
      const liveDoc = liveDocs[l];
      const shadowDoc = shadowDocs[s];
      const order = !liveDoc ? 1 : !shadowDoc ? -1 : byIdOrder(liveDoc, shadowDoc);
      if (order > 0) {
        differences.push({ collection, id: shadowDoc!._id, kind: 'missing_in_live' });
        s += 1;
      } else if (order < 0) {
        differences.push({ collection, id: liveDoc!._id, kind: 'only_in_live' });
        l += 1;
      } else {
        const fields = fieldDifferences(liveDoc, shadowDoc);
        if (fields.length > 0) differences.push({ collection, id: liveDoc!._id, kind: 'different', fields });
        [l, s] = [l + 1, s + 1];
      }
    }
  }
  return differences;
}

/** One line per difference, for people. */
export function describeDifference(difference: Difference): string {
  const where = `${difference.collection} ${difference.id}`;
  switch (difference.kind) {
    case 'missing_in_live': return `${where}: missing from the live read model`;
    case 'only_in_live': return `${where}: in the live read model, but the history does not produce it`;
    case 'different': return `${where}: ${difference.fields
      .map((field) => `${field.path} is ${JSON.stringify(field.live)} live, ${JSON.stringify(field.shadow)} from the history`).join('; ')}`;
    default: return difference satisfies never;
  }
}
