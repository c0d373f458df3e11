import { setImmediate as nextTurn } from 'node:timers/promises';
import { expect } from 'chai';
import type { ReadStore, StoredDoc } from '../../../shared/ports/read-store.ts';
import type { ReadCollection } from '../../../shared/read-model/documents/documents.ts';
import { compareReadModels, describeDifference, fieldDifferences } from '../../../services/audit/compare-read-models.ts';

/** A read store that answers `find` with these documents in this order, whatever sort is asked (as a store of another collation would). */
function storeOf(docs: Partial<Record<ReadCollection, StoredDoc[]>>): ReadStore {
  return { find: async (collection: ReadCollection) => [...(docs[collection] ?? [])] } as unknown as ReadStore;
}

const doc = (_id: string, extra: Record<string, unknown> = {}): StoredDoc => ({ _id, position: 1, ...extra });

describe('compare read models: every difference between a live read model and a replay is reported', () => {
  describe('fieldDifferences', () => {
    it('names nested fields by their full dotted path', () => {
      expect(fieldDifferences({ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } })).to.deep.equal([{ path: 'a.c', live: 2, shadow: 3 }]);
    });

    it('compares arrays element by element, naming the index', () => {
      expect(fieldDifferences({ models: [{ p: 1 }, { p: 2 }] }, { models: [{ p: 1 }, { p: 5 }] }))
        .to.deep.equal([{ path: 'models.1.p', live: 2, shadow: 5 }]);
    });

    it('reports arrays of different lengths once, as their length, and compares the elements both have', () => {
      expect(fieldDifferences({ a: { list: [1, 2] } }, { a: { list: [1] } })).to.deep.equal([{ path: 'a.list.length', live: 2, shadow: 1 }]);
      expect(fieldDifferences([7, 2], [1])).to.deep.equal([{ path: 'length', live: 2, shadow: 1 }, { path: '0', live: 7, shadow: 1 }]);
    });

    it('reports a field whose value changed kind (null, array, object, number) as the field itself', () => {
      expect(fieldDifferences({ a: null }, { a: { b: 1 } })).to.deep.equal([{ path: 'a', live: null, shadow: { b: 1 } }]);
      expect(fieldDifferences({ a: { b: 1 } }, { a: null })).to.deep.equal([{ path: 'a', live: { b: 1 }, shadow: null }]);
      expect(fieldDifferences({ a: [1] }, { a: 'x' })).to.deep.equal([{ path: 'a', live: [1], shadow: 'x' }]);
      expect(fieldDifferences({ a: { x: 1 } }, { a: 5 })).to.deep.equal([{ path: 'a', live: { x: 1 }, shadow: 5 }]);
    });
  });

  describe('compareReadModels', () => {
    it('reports a live document past the last one the history produces', async () => {
      const live = storeOf({ serials: [doc('A'), doc('B')] });
      const shadow = storeOf({ serials: [doc('A')] });
      expect(await compareReadModels(live, shadow, ['serials'])).to.deep.equal([{ collection: 'serials', id: 'B', kind: 'only_in_live' }]);
    });

    it('pairs documents by id in code-unit order, whatever order the stores return them in', async () => {
      // 'B' (0x42) sorts before 'a' (0x61) by code unit; a case-insensitive collation returns them the other way.
      const live = storeOf({ watches: [doc('a'), doc('B'), doc('c')] });
      const shadow = storeOf({ watches: [doc('B'), doc('b'), doc('c', { price_cents: 2 })] });
      expect(await compareReadModels(live, shadow, ['watches'])).to.deep.equal([
        { collection: 'watches', id: 'a', kind: 'only_in_live' },
        { collection: 'watches', id: 'b', kind: 'missing_in_live' },
        { collection: 'watches', id: 'c', kind: 'different', fields: [{ path: 'price_cents', live: undefined, shadow: 2 }] },
      ]);
    });

    it('lets the event loop in while comparing a large collection', async () => {
      const many = Array.from({ length: 1_200 }, (_, i) => doc(`id-${String(i).padStart(5, '0')}`));
      let settled = false;
      const comparison = compareReadModels(storeOf({ serials: many }), storeOf({ serials: many }), ['serials']).then((differences) => {
        settled = true;
        return differences;
      });
      // The stores answer at once, so without a yield the whole comparison ends before the next turn of the loop.
      await nextTurn();
      expect(settled, 'the comparison should still be running after one turn').to.equal(false);
      expect(await comparison).to.deep.equal([]);
    });
  });

  describe('describeDifference', () => {
    it('gives one line per difference, naming the collection and id, and tells a missing document from a stray one', () => {
      const missing = describeDifference({ collection: 'serials', id: 'SN-0001', kind: 'missing_in_live' });
      const stray = describeDifference({ collection: 'serials', id: 'SN-0001', kind: 'only_in_live' });
      for (const line of [missing, stray]) {
        expect(line).to.be.a('string');
        expect(line).to.match(/^serials SN-0001: \S/);
      }
      expect(missing).to.not.equal(stray);
    });

    it('lists every changed field of a document, separated', () => {
      const line = describeDifference({
        collection: 'watches', id: 'en:RG-1', kind: 'different',
        fields: [{ path: 'price_cents', live: 1, shadow: 1_250_000 }, { path: 'position', live: 5, shadow: 4 }],
      });
      expect(line).to.match(/^watches en:RG-1: price_cents is 1 live, 1250000 from the history\W+position is 5 live, 4 from the history$/);
    });
  });
});
