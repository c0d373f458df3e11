/**
 * A lookup's posting holds exactly the slots added and not deleted since, each once, in ascending order, whatever
 * the order of the adds and deletes (new largest slots, reused small ones, repeats, absent ones). Checked against
 * a plain set, seeded (FAST_CHECK_SEED replays) and bounded.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { SlotPosting } from '../../../shared/adapters/memory-read-store/slot-posting.ts';

const SEED = Number(process.env['FAST_CHECK_SEED'] ?? 20261125);

describe('in-memory store: slot posting', () => {
  it('holds the slots added and not deleted, each once, ascending', () => {
    console.log(`      seed ${SEED}`);
    const op = fc.record({ add: fc.boolean(), slot: fc.integer({ min: 0, max: 40 }) });
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 200 }), (ops) => {
      const posting = new SlotPosting();
      const model = new Set<number>();
      for (const { add, slot } of ops) {
        if (add) {
          posting.add(slot);
          model.add(slot);
        } else {
          posting.delete(slot);
          model.delete(slot);
        }
        expect(posting.size).to.equal(model.size);
      }
      expect([...posting]).to.deep.equal([...model].sort((left, right) => left - right));
    }), { seed: SEED, numRuns: 200 });
  });
});
