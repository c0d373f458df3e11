/**
 * A write that leaves the indexed values of a document as they were (a price change of a watch: its ~400 search
 * grams, its language and collection unchanged) files nothing again in the in-memory store's lookups, and one that
 * changes them files exactly the keys that changed. Seen through the table's `filings` counter (one per document
 * filed under or removed from one key); the expected counts are worked out by hand from the documents below.
 */
import { expect } from 'chai';
import { DocTable } from '../../../shared/adapters/memory-read-store/doc-table.ts';

const watch = (position: number, price_cents: number, search_grams: string[], lang = 'en') => ({
  _id: 'en:W-1', lang, reference: 'W-1', price_cents, search_grams, position,
});

describe('in-memory store: index upkeep of a write', () => {
  it('files nothing again when no indexed value changed', () => {
    const table = new DocTable(['lang', 'search_grams'], new Set(['search_grams']));
    table.write([{ put: watch(1, 100, ['abc', 'bcd', 'cd', 'd']) }]);
    // lang once, four grams.
    expect(table.filings).to.equal(5);
    table.write([{ put: watch(2, 200, ['abc', 'bcd', 'cd', 'd']) }]);
    expect(table.filings).to.equal(5);
    expect(table.find({ search_grams: { $all: ['abc', 'bcd'] } }).map((doc) => (doc as { price_cents?: number }).price_cents)).to.deep.equal([200]);
  });

  it('files only the keys that changed', () => {
    const table = new DocTable(['lang', 'search_grams'], new Set(['search_grams']));
    table.write([{ put: watch(1, 100, ['abc', 'bcd', 'cd', 'd']) }]);
    // 'bcd', 'cd', 'd' out, 'bce', 'ce', 'e' in; 'abc' and the language stay.
    table.write([{ put: watch(2, 100, ['abc', 'bce', 'ce', 'e']) }]);
    expect(table.filings).to.equal(5 + 6);
    expect(table.find({ search_grams: 'bcd' })).to.deep.equal([]);
    expect(table.find({ search_grams: 'bce' }).map((doc) => doc.position)).to.deep.equal([2]);
    // The language out and in again.
    table.write([{ put: watch(3, 100, ['abc', 'bce', 'ce', 'e'], 'fr') }]);
    expect(table.filings).to.equal(5 + 6 + 2);
    expect(table.find({ lang: 'en' })).to.deep.equal([]);
    expect(table.find({ lang: 'fr', search_grams: 'abc' }).map((doc) => doc.position)).to.deep.equal([3]);
  });
});
