/**
 * What a batch shows a projection for an event that reaches documents by filter: exactly the stored documents the
 * filter matches, whether it is one equality of a field (found through the working set's index) or anything else
 * (several fields, an operator: evaluated against the working set), and when the batch checks in (its lease, the
 * event loop): only once `everyMs` have passed on its clock, never at its start.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { FIRST_GENERATION, type Filter, type StoredDoc } from '../../../shared/ports/read-store.ts';
import { projectBatch } from '../../../shared/read-model/projections/batch.ts';
import type { PositionedEvent, PositionedRecord, Projection } from '../../../shared/read-model/projections/projection.ts';

interface ProbeDoc extends StoredDoc { a?: string; b?: string; seen: number[] }

/** A projection whose every event reaches the documents its filter (carried in the event) matches, and marks them. */
const probe = {
  name: 'probe',
  collection: 'serials',
  handles: new Set(['WatchRevised']),
  touches: (event: PositionedEvent) => ({ ids: [], filter: (event.data as unknown as { filter: Filter }).filter }),
  apply: (event: PositionedEvent, docs: ReadonlyMap<string, ProbeDoc>) =>
    [...docs.values()].map((doc) => ({ put: { ...doc, seen: [...doc.seen, event.position], position: event.position } })),
} as unknown as Projection;

const reaching = (position: number, filter: Filter) => ({ position, type: 'WatchRevised', data: { filter } }) as unknown as PositionedRecord;

async function storedDocs() {
  const store = createMemoryReadStore();
  const docs: ProbeDoc[] = [
    { _id: 'd1', a: 'x', b: 'y', seen: [], position: 0 },
    { _id: 'd2', a: 'x', b: 'z', seen: [], position: 0 },
    { _id: 'd3', a: 'z', b: 'y', seen: [], position: 0 },
    { _id: 'd4', a: 'w', seen: [], position: 0 },
  ];
  await store.write('serials', docs.map((put) => ({ put })));
  return store.generation('serials', FIRST_GENERATION);
}

const seenBy = (writes: Awaited<ReturnType<typeof projectBatch>>) =>
  Object.fromEntries(writes.flatMap((op) => ('put' in op ? [[op.put._id, (op.put as ProbeDoc).seen]] : [])));

describe('batch: documents an event reaches by filter', () => {
  it('are the stored documents its filter matches, for equalities of one field, of two, and an operator, in one batch', async () => {
    const writes = await projectBatch(probe, [
      reaching(1, { a: 'x', b: 'y' }),
      reaching(2, { a: { $in: ['z', 'w'] } }),
      reaching(3, { b: 'y' }),
      reaching(4, { a: 'x' }),
    ], await storedDocs());
    // By hand: d1 (a x, b y) is matched by 1, 3 and 4; d2 (a x, b z) by 4; d3 (a z, b y) by 2 and 3; d4 (a w) by 2.
    expect(seenBy(writes)).to.deep.equal({ d1: [1, 3, 4], d2: [4], d3: [2, 3], d4: [2] });
  });
});

describe('batch: check-ins', () => {
  const events = [reaching(1, { a: 'x' }), reaching(2, { b: 'y' }), reaching(3, { a: 'w' })];

  it('none while its clock stands still, however far from zero it reads', async () => {
    let checkIns = 0;
    await projectBatch(probe, events, await storedDocs(), { checkIn: { everyMs: 10, now: () => 5_000, run: async () => { checkIns += 1; } } });
    expect(checkIns).to.equal(0);
  });

  it('one, before the first event that finds everyMs passed since the batch began, then none until they pass again', async () => {
    let now = 5_000;
    const before: number[] = [];
    const timed = {
      ...probe,
      apply: (event: PositionedEvent, docs: ReadonlyMap<string, StoredDoc>) => {
        // Each event takes 6 ms of the batch's clock: everyMs (10) has passed before the third event, not the second.
        now += 6;
        return probe.apply(event, docs);
      },
    } as Projection;
    await projectBatch(timed, events, await storedDocs(), {
      checkIn: { everyMs: 10, now: () => now, run: async () => { before.push(now); } },
    });
    expect(before).to.deep.equal([5_012]);
  });
});

describe('batch: what it asks the store', () => {
  // MongoDB refuses `{ $or: [] }` ("$or/$and/$nor entries need to be non-empty arrays"), which the in-memory store
  // reads as matching nothing: a batch with no filter must send no `find` at all, or every such batch fails there.
  it('no find when every event reaches documents by id only, and the ids it names by one read', async () => {
    const byIds = {
      ...probe,
      touches: (event: PositionedEvent) => ({ ids: [`d${event.position}`] }),
    } as Projection;
    const stored = await storedDocs();
    const finds: Filter[] = [];
    const reads: string[][] = [];
    const source = {
      getStored: async (ids: string[]) => { reads.push(ids); return stored.getStored(ids); },
      find: async <D extends StoredDoc>(filter: Filter) => { finds.push(filter); return stored.find<D>(filter); },
    };
    const writes = await projectBatch(byIds, [reaching(1, {}), reaching(2, {})], source);
    expect(finds).to.deep.equal([]);
    expect(reads).to.deep.equal([['d1', 'd2']]);
    expect(seenBy(writes)).to.deep.equal({ d1: [1], d2: [2] });
  });
});
