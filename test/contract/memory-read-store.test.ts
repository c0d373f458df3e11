import { expect } from 'chai';
import fc from 'fast-check';
import { Query } from 'mingo';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { sortDocs } from '../../shared/adapters/memory-read-store/sort-order.ts';
import type { StoredDoc } from '../../shared/ports/read-store.ts';
import { generationSnapshotContract } from './generation-snapshot.contract.ts';
import { leaseContract } from './lease.contract.ts';
import { leaseClocksContract } from './lease-clocks.contract.ts';
import { leaseRefusalsContract } from './lease-refusals.contract.ts';
import { orphanGenerationsContract } from './orphan-generations.contract.ts';
import { readStoreContract } from './read-store.contract.ts';
import { generationsContract } from './generations.contract.ts';

readStoreContract('in memory (mingo)', async () => createMemoryReadStore());
generationsContract('in memory (mingo)', async () => createMemoryReadStore());
leaseContract('in memory (mingo)', async () => createMemoryReadStore());
leaseRefusalsContract('in memory (mingo)', async () => createMemoryReadStore());
leaseClocksContract('in memory (mingo)', async () => createMemoryReadStore());
generationSnapshotContract('in memory (mingo)', async () => createMemoryReadStore());
orphanGenerationsContract('in memory (mingo)', async () => createMemoryReadStore());

const scalar = fc.oneof(fc.constantFrom('en', 'fr', 'Abc', 'a.b', ''), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null));

describe('in-memory read store: fast paths agree with mingo', function () {
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
