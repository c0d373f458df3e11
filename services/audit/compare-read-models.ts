/**
 * Compares two read stores document by document: the live read models against a shadow projected from the history
 * (or any two stores). Key order does not matter (a document back from MongoDB need not keep it); everything else
 * does. Pure over the ReadStore port, so it runs alike on MongoDB and in the embedded server's memory.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../shared/read-models/documents.ts';

export interface FieldDifference {
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
export const PROJECTED_COLLECTIONS: readonly ReadCollection[] = ['watches', 'collections', 'configurators', 'serials'];

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

async function byId(store: ReadStore, collection: ReadCollection): Promise<Map<string, StoredDoc>> {
  const docs = await store.find<StoredDoc>(collection, {}, { sort: { _id: 1 } });
  return new Map(docs.map((doc) => [doc._id, doc]));
}

/** Every difference between the two stores over `collections`, by collection then id. Empty when they agree. */
export async function compareReadModels(
  live: ReadStore, shadow: ReadStore, collections: readonly ReadCollection[] = PROJECTED_COLLECTIONS,
): Promise<Difference[]> {
  const differences: Difference[] = [];
  for (const collection of collections) {
    const [liveDocs, shadowDocs] = await Promise.all([byId(live, collection), byId(shadow, collection)]);
    const ids = [...new Set([...liveDocs.keys(), ...shadowDocs.keys()])].sort();
    for (const [index, id] of ids.entries()) {
      // Inside a serving process (the embedded audit), let requests in between slices of the comparison.
      if (index % COMPARE_SLICE === COMPARE_SLICE - 1) await yieldToEventLoop();
      const liveDoc = liveDocs.get(id);
      const shadowDoc = shadowDocs.get(id);
      if (!liveDoc) differences.push({ collection, id, kind: 'missing_in_live' });
      else if (!shadowDoc) differences.push({ collection, id, kind: 'only_in_live' });
      else {
        const fields = fieldDifferences(liveDoc, shadowDoc);
        if (fields.length > 0) differences.push({ collection, id, kind: 'different', fields });
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
