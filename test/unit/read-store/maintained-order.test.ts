import { expect } from 'chai';
import { MaintainedOrder } from '../../../shared/adapters/memory-read-store/maintained-order.ts';
import { sortDocs } from '../../../shared/adapters/memory-read-store/sort-order.ts';
import type { Sort, StoredDoc } from '../../../shared/ports/read-store.ts';
import { between, seededRandom } from '../../../shared/random/seeded-random.ts';

interface Doc extends StoredDoc { a?: unknown; b?: unknown }

/** Few distinct values of several kinds, some missing: many ties, and every cross-kind rule used. */
function value(random: () => number): unknown {
  const pick = between(random, 0, 5);
  if (pick === 0) return undefined;
  if (pick === 1) return null;
  if (pick <= 3) return between(random, -2, 2);
  return ['x', 'y', 'Z'][between(random, 0, 2)];
}

const SORTS: Sort[] = [{ a: 1 }, { a: -1, b: 1 }, { b: 1, a: -1, _id: 1 }];

describe('maintained sort order', function () {
  for (const sort of SORTS) {
    it(`stays equal to a stable sort of the documents in write order through random puts and removes: ${JSON.stringify(sort)}`, function () {
      for (const seed of [1, 2, 3]) {
        const random = seededRandom(seed);
        // Write order is what breaks ties: the model keeps the documents in it (a rewrite moves one to the end).
        const byId = new Map<string, Doc>();
        let seq = 0;
        const seqOf = new Map<string, number>();
        const order = new MaintainedOrder(sort, []);
        // Enough documents for the order to split its blocks, few enough ids for many rewrites.
        for (let step = 0; step < 3_000; step += 1) {
          const id = `d${between(random, 0, 900)}`;
          if (byId.has(id)) {
            order.remove(id);
            byId.delete(id);
            seqOf.delete(id);
          }
          if (random() < 0.8) {
            const doc: Doc = { _id: id, position: step, a: value(random), b: value(random) };
            byId.set(id, doc);
            seqOf.set(id, (seq += 1));
            order.insert(doc, seq);
          }
          if (step % 500 === 499 || step === 2_999) {
            const inWriteOrder = [...byId.values()].sort((left, right) => seqOf.get(left._id)! - seqOf.get(right._id)!);
            const expected = sortDocs(inWriteOrder, sort).map((doc) => doc._id);
            expect([...order.docs()].map((doc) => doc._id), `seed ${seed}, step ${step}`).to.deep.equal(expected);
          }
        }
      }
    });
  }

  it('built from existing documents, orders them as a stable sort of them in write order', function () {
    const random = seededRandom(9);
    const docs = Array.from({ length: 1_200 }, (_, i): Doc => ({ _id: `d${i}`, position: 1, a: value(random), b: value(random) }));
    // Sequence numbers shuffled against the ids, so the ids' order cannot stand in for the write order.
    const seqs = docs.map((doc, i) => ({ doc, seq: (i * 7_919) % 1_201 }));
    const order = new MaintainedOrder({ a: 1, b: -1 }, seqs);
    const inWriteOrder = [...seqs].sort((left, right) => left.seq - right.seq).map(({ doc }) => doc);
    expect([...order.docs()].map((doc) => doc._id)).to.deep.equal(sortDocs(inWriteOrder, { a: 1, b: -1 }).map((doc) => doc._id));
  });
});
