/**
 * The generation pointer: which generation of each projected collection readers read. A rebuild reserves the next
 * generation number (above every live or reserved one, so two rebuilds never build into one generation) and, once
 * that generation is at the head under the projections' leases, switches readers to it in one compare-and-set.
 */
import { FIRST_GENERATION, GENERATIONS_ID, type ProjectedCollection, type ReadStore } from '../ports/read-store.ts';
import { generationsOf, readControlDocs, type GenerationsDoc } from './control-docs.ts';

async function changePointer(store: ReadStore, change: (current: GenerationsDoc) => GenerationsDoc): Promise<GenerationsDoc> {
  for (;;) {
    const stored = generationsOf(await readControlDocs(store));
    const current: GenerationsDoc = stored ?? { _id: GENERATIONS_ID, version: 0, live: {}, reserved: FIRST_GENERATION };
    const next = change(current);
    if (await store.setControl({ ...next, version: current.version + 1 }, { version: current.version }, stored === undefined)) return next;
  }
}

/** A generation number no other rebuild has, above every live one. */
export async function reserveGeneration(store: ReadStore): Promise<number> {
  const next = await changePointer(store, (current) => ({
    ...current, reserved: Math.max(current.reserved, ...Object.values(current.live)) + 1,
  }));
  return next.reserved;
}

/** Makes `generation` live for every collection named, in one step; returns the generations they replace. */
export async function switchGenerations(
  store: ReadStore, collections: readonly ProjectedCollection[], generation: number,
): Promise<Map<ProjectedCollection, number>> {
  const replaced = new Map<ProjectedCollection, number>();
  await changePointer(store, (current) => {
    replaced.clear();
    const live = { ...current.live };
    for (const collection of collections) {
      const previous = live[collection] ?? FIRST_GENERATION;
      if (previous >= generation) throw new Error(`generation ${previous} of ${collection} is live: ${generation} would go back`);
      replaced.set(collection, previous);
      live[collection] = generation;
    }
    return { ...current, live };
  });
  return replaced;
}
