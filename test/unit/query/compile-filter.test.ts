import { expect } from 'chai';
import fc from 'fast-check';
import { Query } from 'mingo';
import type { Filter } from '../../../shared/ports/read-store.ts';
import { compileFilter } from '../../../shared/read-model/query/compile-filter.ts';
import { compileFastFilter } from '../../../shared/read-model/query/fast-filter.ts';

const scalar = fc.oneof(fc.constantFrom('en', 'fr', 'Abc', 'a.b', ''), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null));
const fieldValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.record({ code: scalar }));
const doc = fc.record({ lang: fieldValue, price: fieldValue, nested: fc.oneof(fc.record({ code: fieldValue }), scalar) }, { requiredKeys: [] });
const path = fc.constantFrom('lang', 'price', 'nested.code', 'missing');
const condition = fc.oneof(
  scalar,
  scalar.map(($eq) => ({ $eq })),
  scalar.map(($ne) => ({ $ne })),
  fc.array(scalar, { maxLength: 3 }).map(($in) => ({ $in })),
  fc.array(scalar, { maxLength: 3 }).map(($nin) => ({ $nin })),
  fc.record({ $gte: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'F')), $lt: fc.integer({ min: -3, max: 3 }) }, { requiredKeys: [] })
    .filter((range) => Object.keys(range).length > 0),
  fc.constantFrom('^a', 'b', '\\.', 'E').map(($regex) => ({ $regex })),
  fc.constantFrom('^a', 'B').map(($regex) => ({ $regex, $options: 'i' })),
  fc.boolean().map(($exists) => ({ $exists })),
  // The search's gram conditions: every gram, or a gram starting with a short term.
  fc.array(fc.constantFrom('en', 'fr', 'Abc', ''), { minLength: 1, maxLength: 3 }).map(($all) => ({ $all })),
);
const clause = fc.dictionary(path, condition, { minKeys: 1, maxKeys: 2 });
const filter: fc.Arbitrary<Filter> = fc.oneof(
  clause,
  fc.array(clause, { minLength: 1, maxLength: 3 }).map(($or) => ({ $or })),
  fc.tuple(clause, fc.array(clause, { minLength: 1, maxLength: 2 })).map(([first, $and]) => ({ ...first, $and })),
);

// Documents whose paths `a`, `a.b` and `a.b.c` meet scalars, objects, arrays of either and arrays of arrays; plain
// objects, as stored documents are (mingo's `$in` cannot hash a null-prototype object).
const pathScalar = fc.constantFrom('A', 'B', 0, -0, 1, true, null);
const treeDoc = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, pathScalar, tie('object'), fc.array(tie('value'), { maxLength: 3 })),
  object: fc.record({ a: tie('value'), b: tie('value'), c: tie('value') }, { requiredKeys: ['a', 'b'], noNullPrototype: true }),
})).object;
const treePath = fc.constantFrom('a', 'a.b', 'a.b.c');
const expected = fc.constantFrom('A', 0, 1, true);
/** Equalities to a scalar other than null: the conditions decided through arrays of sub-documents. */
const elementCondition = fc.oneof(expected, expected.map(($eq) => ({ $eq })));
const treeCondition = fc.oneof(
  elementCondition,
  fc.constant(null),
  fc.array(fc.constantFrom('A', 0, 1, true, null), { maxLength: 3 }).map(($in) => ({ $in })),
  expected.map(($ne) => ({ $ne })),
  fc.boolean().map(($exists) => ({ $exists })),
  fc.integer({ min: -1, max: 1 }).map(($gt) => ({ $gt })),
  fc.array(fc.constantFrom('A', 'B'), { minLength: 1, maxLength: 2 }).map(($all) => ({ $all })),
  fc.constantFrom('^A', 'A').map(($regex) => ({ $regex })),
);

function holdsArrayInArray(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((element) => Array.isArray(element) || holdsArrayInArray(element));
  return value !== null && typeof value === 'object' && Object.values(value).some(holdsArrayInArray);
}

/** Every filter is in the fast subset, and the compiled filter matches exactly the documents mingo matches. */
function assertAgreesWithMingo(filters: fc.Arbitrary<Filter>, docLists: fc.Arbitrary<Record<string, unknown>[]>, numRuns: number): void {
  fc.assert(fc.property(filters, docLists, (f, docs) => {
    expect(compileFastFilter(f), 'filter outside the fast subset').to.not.equal(null);
    const mingo = new Query(f);
    const predicate = compileFilter(f);
    for (const d of docs) expect(predicate(d), JSON.stringify({ f, d })).to.equal(mingo.test(d));
  }), { numRuns });
}

describe('filter compiler: fast paths agree with mingo', function () {
  it('the compiled filter matches exactly the documents mingo matches, arrays and missing fields included', function () {
    // Stored documents are plain objects (structuredClone on write), so the docs here are too.
    assertAgreesWithMingo(filter, fc.array(doc, { maxLength: 8 }).map((list) => structuredClone(list)), 600);
  });

  it('matches exactly the documents mingo matches through arrays of sub-documents and nested arrays', function () {
    const treeFilter = fc.dictionary(treePath, treeCondition, { minKeys: 1, maxKeys: 2, noNullPrototype: true });
    assertAgreesWithMingo(treeFilter, fc.array(treeDoc, { maxLength: 6 }), 1_000);
  });

  it('decides equalities through arrays of sub-documents itself, unless an array lies directly inside an array', function () {
    const elementFilter = fc.dictionary(treePath, elementCondition, { minKeys: 1, maxKeys: 2, noNullPrototype: true });
    const plainDoc = treeDoc.filter((d) => !holdsArrayInArray(d));
    fc.assert(fc.property(elementFilter, plainDoc, (f, d) => {
      expect(compileFastFilter(f)!(d), JSON.stringify({ f, d })).to.equal(new Query(f).test(d));
    }), { numRuns: 1_000 });
    const fast = compileFastFilter({ 'member_prices.reference': 'TMP-1' })!;
    expect(fast({ member_prices: [{ reference: 'TMP-2' }, { reference: 'TMP-1' }] })).to.equal(true);
    expect(fast({ member_prices: [{ reference: 'TMP-2' }] })).to.equal(false);
    expect(fast({ member_prices: [] })).to.equal(false);
    expect(fast({ member_prices: { reference: ['TMP-1'] } })).to.equal(true);
    expect(fast({ member_prices: [[{ reference: 'TMP-1' }]] })).to.equal(undefined);
  });

  it('asks mingo about array indexes, null and $in through arrays, and mingo answers', function () {
    const d = { a: [{ b: 'A' }, { b: ['B'] }], n: [null] };
    for (const f of [{ 'a.0.b': 'A' }, { 'a.b': null }, { n: null }, { 'a.b': { $in: ['B'] } }, { $or: [{ n: null }] }]) {
      expect(compileFastFilter(f)!(d), JSON.stringify(f)).to.equal(undefined);
      expect(compileFilter(f)(d), JSON.stringify(f)).to.equal(new Query(f).test(d));
    }
  });

  it('leaves filters outside its subset to mingo', function () {
    for (const f of [{ tags: { $size: 2 } }, { lang: { $not: { $eq: 'en' } } }, { nested: { code: 'a' } }, { price: { $mod: [2, 0] } }]) {
      expect(compileFastFilter(f), JSON.stringify(f)).to.equal(null);
      expect(compileFilter(f)({ tags: ['a', 'b'], lang: 'fr', nested: { code: 'a' }, price: 4 }), JSON.stringify(f)).to.equal(true);
    }
  });
});
