/**
 * Bounded batch work (issue 28): an event that reaches documents by an equality filter (a watch rename reaching its
 * serials, a collection rename its watches) examines the documents of the working set holding that value, not the
 * whole working set, and the batch writes exactly what evaluating every filter against the whole working set writes.
 */
import { expect } from 'chai';
import type { DomainEvent } from '../../../shared/events/index.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { FIRST_GENERATION, type ReadStore, type WriteOp } from '../../../shared/ports/read-store.ts';
import { projectBatch } from '../../../shared/read-model/projections/batch.ts';
import type { Projection } from '../../../shared/read-model/projections/projection.ts';
import { serialsProjection } from '../../../shared/read-model/projections/serials.projection.ts';
import { watchesProjection } from '../../../shared/read-model/projections/watches.projection.ts';
import { between, seededRandom } from '../../../shared/random/seeded-random.ts';
import { serialRegistered, watchPublished } from '../../fixtures/events.ts';
import { largeHistory } from '../../support/large-history.ts';
import { event, positioned, project } from './support/projection-spec.ts';

/** The projection with each filter wrapped in `$and`: the same documents match, and no index serves it. */
const unindexed = (projection: Projection): Projection => ({
  ...projection,
  touches: (e) => {
    const touches = projection.touches(e);
    return touches.filter ? { ...touches, filter: { $and: [touches.filter] } } : touches;
  },
});

const byId = (ops: WriteOp[]) => [...ops].sort((a, b) => idOf(a).localeCompare(idOf(b)));
const idOf = (op: WriteOp) => ('put' in op ? op.put._id : op.delete._id);

/**
 * The large history of the replay tests, with watches published again into another collection and serials
 * registered again to another watch: documents whose indexed value changes in the middle of a batch.
 */
function history(seed: number): DomainEvent[] {
  const random = seededRandom(seed);
  const events: DomainEvent[] = largeHistory(seed, 3_000);
  const collections = ['tempo', 'abysse', 'regate'];
  const references = [...new Set(events.flatMap((e) => (e.type === 'WatchPublished' ? [e.data.reference] : [])))];
  const serials = events.flatMap((e) => (e.type === 'SerialRegistered' ? [e.data.serial] : []));
  for (let i = 0; i < 60; i += 1) {
    const at = between(random, 40, events.length);
    const reference = references[between(random, 0, references.length - 1)]!;
    const collection = collections[between(random, 0, collections.length - 1)]!;
    events.splice(at, 0, i % 2 === 0
      ? watchPublished(reference, collection)
      : serialRegistered(serials[between(random, 0, serials.length - 1)]!, { reference, collection }));
  }
  return events;
}

async function storeWith(projection: Projection, stored: ReturnType<typeof positioned>): Promise<ReadStore> {
  const store = createMemoryReadStore();
  await project(store, projection, stored, 500);
  return store;
}

describe('batch work is bounded by the documents an event reaches', () => {
  // The projections whose events reach documents by filter: renames of collections (watches) and of watches (serials).
  for (const projection of [watchesProjection, serialsProjection] as Projection[]) {
    it(`${projection.name}: on seeded random batches, the writes equal those of filters evaluated against the whole working set`, async function () {
      this.timeout(60_000);
      for (const seed of [1, 2, 3, 4, 5]) {
        const events = positioned(history(seed));
        const cut = between(seededRandom(seed), 200, 1_500);
        const store = await storeWith(projection, events.slice(0, cut));
        const source = store.generation(projection.collection, FIRST_GENERATION);
        const batch = events.slice(cut);
        const work = { examined: 0 };
        const indexed = await projectBatch(projection, batch, source, { work });
        const scanned = await projectBatch(unindexed(projection), batch, source);
        expect(byId(indexed), `seed ${seed}`).to.deep.equal(byId(scanned));
        expect(work.examined, `seed ${seed}: documents were reached by filter`).to.be.greaterThan(0);
      }
    });
  }

  it('serials: a watch rename examines its own serials, the same number when the working set and the registry grow tenfold', async () => {
    const SERIALS_PER_WATCH = 10;
    const examinedPerRename: number[] = [];
    for (const watches of [100, 1_000]) {
      const reference = (w: number) => `BB-${String(w).padStart(4, '0')}`;
      const registry = Array.from({ length: watches * SERIALS_PER_WATCH }, (_, s) =>
        serialRegistered(`BB-S${String(s).padStart(6, '0')}`, { reference: reference(s % watches), collection: 'tempo' }));
      const store = await storeWith(serialsProjection, positioned(registry));
      // Every watch renamed: the batch loads every serial of the registry.
      const renames = positioned(Array.from({ length: watches }, (_, w) =>
        event('WatchRevised', { reference: reference(w), name: { en: `Renamed ${w}`, fr: `Renommée ${w}` } })), registry.length + 1);
      const work = { examined: 0 };
      const ops = await projectBatch(serialsProjection, renames, store.generation('serials', FIRST_GENERATION), { work });
      expect(ops, 'every serial renamed').to.have.length(watches * SERIALS_PER_WATCH);
      examinedPerRename.push(work.examined / watches);
    }
    expect(examinedPerRename).to.deep.equal([SERIALS_PER_WATCH, SERIALS_PER_WATCH]);
  });
});
