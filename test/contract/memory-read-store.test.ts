import { expect } from 'chai';
import fc from 'fast-check';
import { Query } from 'mingo';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { compileFilter } from '../../shared/query/compile-filter.ts';
import { compileFastFilter } from '../../shared/query/fast-filter.ts';
import { sortDocs } from '../../shared/adapters/memory-read-store/sort-order.ts';
import type { Filter, StoredDoc } from '../../shared/ports/read-store.ts';
import { readStoreContract } from './read-store.contract.ts';

readStoreContract('in memory (mingo)', async () => createMemoryReadStore());

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
);
const clause = fc.dictionary(path, condition, { minKeys: 1, maxKeys: 2 });
const filter: fc.Arbitrary<Filter> = fc.oneof(
  clause,
  fc.array(clause, { minLength: 1, maxLength: 3 }).map(($or) => ({ $or })),
  fc.tuple(clause, fc.array(clause, { minLength: 1, maxLength: 2 })).map(([first, $and]) => ({ ...first, $and })),
);

describe('in-memory read store: fast paths agree with mingo', function () {
  it('the compiled filter matches exactly the documents mingo matches, arrays and missing fields included', function () {
    // Stored documents are plain objects (structuredClone on write), so the docs here are too.
    const docLists = fc.array(doc, { maxLength: 8 }).map((list) => structuredClone(list));
    fc.assert(fc.property(filter, docLists, (f, docs) => {
      expect(compileFastFilter(f), 'filter outside the fast subset').to.not.equal(null);
      const mingo = new Query(f);
      const predicate = compileFilter(f);
      for (const d of docs) expect(predicate(d), JSON.stringify({ f, d })).to.equal(mingo.test(d));
    }), { numRuns: 600 });
  });

  it('leaves filters outside its subset to mingo', function () {
    for (const f of [{ tags: { $size: 2 } }, { lang: { $not: { $eq: 'en' } } }, { nested: { code: 'a' } }, { price: { $mod: [2, 0] } }]) {
      expect(compileFastFilter(f), JSON.stringify(f)).to.equal(null);
      expect(compileFilter(f)({ tags: ['a', 'b'], lang: 'fr', nested: { code: 'a' }, price: 4 }), JSON.stringify(f)).to.equal(true);
    }
  });

  it('sorts scalar keys in the order mingo sorts them, across kinds and with missing values', function () {
    const sortable = fc.record({ _id: fc.uuid(), a: scalar, b: scalar }, { requiredKeys: ['_id'] });
    fc.assert(fc.property(fc.uniqueArray(sortable, { selector: (d) => d._id, maxLength: 10 }), fc.constantFrom(1, -1), (docs, direction) => {
      const sort = { a: direction, b: 1, _id: 1 } as const;
      const expected = new Query({}).find<{ _id: string }>(docs).sort(sort).all().map((d) => d._id);
      expect(sortDocs(docs, sort).map((d) => d._id)).to.deep.equal(expected);
    }), { numRuns: 300 });
  });

  it('an index never hides a document that matches only through an array or after its indexed value changed', async function () {
    const store = createMemoryReadStore();
    const docs: (StoredDoc & Record<string, unknown>)[] = [
      { _id: 'a', lang: ['en', 'fr'], position: 1 },
      { _id: 'b', lang: 'fr', position: 1 },
      { _id: 'c', position: 1 },
    ];
    await store.write('watches', docs.map((put) => ({ put })));
    const moved: StoredDoc & Record<string, unknown> = { _id: 'b', lang: 'en', position: 2 };
    await store.write('watches', [{ put: moved }]);
    const found = await store.find('watches', { lang: 'en' }, { sort: { _id: 1 } });
    expect(found.map((d) => d._id)).to.deep.equal(['a', 'b']);
    expect(await store.count('watches', { lang: 'fr' })).to.equal(1);
    expect(await store.count('watches', { lang: { $in: ['en', 'fr'] } })).to.equal(2);
  });
});

describe('in-memory read store: cached answers', function () {
  it('a bulk write that fails midway still drops the answers cached before it', async function () {
    const store = createMemoryReadStore();
    await store.write('watches', [{ put: { _id: 'a', lang: 'en', position: 1 } as StoredDoc }]);
    expect(await store.count('watches', { lang: 'en' })).to.equal(1);
    const uncopyable = { _id: 'c', lang: 'en', position: 1, run: () => 'a function cannot be copied' } as StoredDoc;
    const failed = await store.write('watches', [{ put: { _id: 'b', lang: 'en', position: 1 } as StoredDoc }, { put: uncopyable }])
      .then(() => false, () => true);
    expect(failed, 'the second put throws').to.equal(true);
    expect(await store.count('watches', { lang: 'en' })).to.equal(2);
  });
});
