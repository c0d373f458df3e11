import { expect } from 'chai';
import fc from 'fast-check';
import { Query } from 'mingo';
import { compileFastMatcher, compileMatcher } from '../../../projector/filter-match.ts';
import type { Filter } from '../../../shared/ports/read-store.ts';

const scalar = fc.constantFrom('A', 'B', 0, -0, 1, true, null);
// Documents whose paths `a`, `a.b` and `a.b.c` meet scalars, objects, arrays of either and arrays of arrays.
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), fc.array(tie('value'), { maxLength: 3 })),
  object: fc.record({ a: tie('value'), b: tie('value'), c: tie('value') }, { requiredKeys: ['a', 'b'] }),
})).object;
const path = fc.constantFrom('a', 'a.b', 'a.b.c');
const equality = fc.dictionary(path, fc.constantFrom('A', 0, 1, true), { minKeys: 1, maxKeys: 2 });

describe('projector filter matching', () => {
  it('matches exactly the documents mingo matches, through arrays of sub-documents and nested arrays', () => {
    fc.assert(fc.property(equality, fc.array(value, { maxLength: 6 }), (filter, docs) => {
      expect(compileFastMatcher(filter), 'a path equality is matched directly').to.not.equal(null);
      const mingo = new Query(filter);
      const matches = compileMatcher(filter);
      for (const doc of docs) expect(matches(doc), JSON.stringify({ filter, doc })).to.equal(mingo.test(doc));
    }), { numRuns: 1_000 });
  });

  it('decides without mingo for documents with no array directly inside an array', () => {
    const fast = compileFastMatcher({ 'member_prices.reference': 'TMP-1' })!;
    expect(fast({ member_prices: [{ reference: 'TMP-2' }, { reference: 'TMP-1' }] })).to.equal(true);
    expect(fast({ member_prices: [{ reference: 'TMP-2' }] })).to.equal(false);
    expect(fast({ member_prices: [] })).to.equal(false);
    expect(fast({ member_prices: { reference: ['TMP-1'] } })).to.equal(true);
  });

  it('leaves operators, array indexes, null and non-scalar values to mingo, which answers them', () => {
    const doc = { a: [{ b: 'A' }], n: null, o: { p: 1 } };
    const filters: Filter[] = [{ a: { $size: 1 } }, { 'a.0.b': 'A' }, { n: null }, { o: { p: 1 } }, { $or: [{ n: null }] }, {}];
    for (const filter of filters) {
      expect(compileFastMatcher(filter), JSON.stringify(filter)).to.equal(null);
      expect(compileMatcher(filter)(doc), JSON.stringify(filter)).to.equal(new Query(filter).test(doc));
    }
  });
});
