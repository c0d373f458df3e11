/**
 * The batch's working set finds the documents an equality filter reaches through its index of that field: exactly
 * the documents, in the same order, that evaluating the filter against every document of the working set gives,
 * whatever the documents hold on the path (scalars, objects, arrays of either, nothing) and however the batch's
 * own changes move them from one value to another.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { StoredDoc } from '../../../shared/ports/read-store.ts';
import { compileFilter } from '../../../shared/read-model/query/compile-filter.ts';
import type { Scalar } from '../../../shared/read-model/projections/equality-index.ts';
import { WorkingSet } from '../../../shared/read-model/projections/working-set.ts';

const PATHS = ['a', 'a.b', 'a.0'] as const;
const value = fc.constantFrom<Scalar>('A', 'B', 0, 1, true);
const onPath = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, value, fc.constant(null), tie('object'), fc.array(tie('any'), { maxLength: 3 })),
  object: fc.record({ a: tie('any'), b: tie('any'), 0: tie('any') }, { requiredKeys: [], noNullPrototype: true }),
})).object;
const id = fc.constantFrom('d1', 'd2', 'd3', 'd4', 'd5', 'd6');
const step = fc.oneof(
  fc.record({ find: fc.tuple(fc.constantFrom(...PATHS), value) }),
  fc.record({ put: fc.tuple(id, onPath) }),
  fc.record({ remove: id }),
);

describe('batch working set: documents reached through an equality index', () => {
  it('are those a scan of the working set with the filter finds, in its order, through every change of the batch', () => {
    fc.assert(fc.property(fc.array(fc.tuple(id, onPath), { maxLength: 6 }), fc.array(step, { maxLength: 25 }), (loaded, steps) => {
      const working = new WorkingSet(PATHS);
      // The working set as the test keeps it: ids in first-seen order, `null` once deleted.
      const model = new Map<string, StoredDoc | null>();
      let position = 1;
      for (const [docId, body] of loaded) {
        const doc = { ...structuredClone(body), _id: docId, position };
        working.load(doc);
        model.set(docId, doc);
      }
      for (const next of steps) {
        position += 1;
        if ('put' in next) {
          const doc = { ...structuredClone(next.put[1]), _id: next.put[0], position };
          working.record({ put: doc }, position);
          model.set(doc._id, doc);
        } else if ('remove' in next) {
          working.record({ delete: next.remove }, position);
          if (model.get(next.remove)) model.set(next.remove, null);
        } else {
          const [path, expected] = next.find;
          const matches = compileFilter({ [path]: expected });
          const scanned = [...model].filter(([, doc]) => doc !== null && matches(doc)).map(([docId]) => docId);
          const found = [...working.view([], { matches, equality: [path, expected] }).keys()];
          expect(found, JSON.stringify({ path, expected, docs: [...model.values()] })).to.deep.equal(scanned);
        }
      }
    }), { numRuns: 1_500, seed: 28 });
  });
});

describe('batch working set: a tombstone read', () => {
  // A replay (after a crash or a lost lease) can bring events older than a stored withdrawal: the position rule says
  // a tombstone at 10 already reflects an event at 7, so its put must not bring the document back, even for a while.
  it('keeps an older event from writing the document again: nothing is written for a put at a position below it', () => {
    const working = new WorkingSet([]);
    working.load({ _id: 'w1', _deleted: true, position: 10 });
    working.record({ put: { _id: 'w1', position: 7 } }, 7);
    expect(working.writes()).to.deep.equal([]);
    expect(working.view(['w1'], undefined).size).to.equal(0);
  });

  // The tombstone of a delete carries the position of the event that deleted, so that a replayed older put (the
  // test above) is refused by the store too; it replaces the document read at 5, on that condition.
  it('writes a delete at the position of the event that deleted, expecting the position it read', () => {
    const working = new WorkingSet([]);
    working.load({ _id: 'w1', position: 5 });
    working.record({ delete: 'w1' }, 10);
    expect(working.writes()).to.deep.equal([{ delete: { _id: 'w1', position: 10 }, expected: 5 }]);
  });
});
