/**
 * The catalogue search through the gram index answers exactly docs/api.md's search: a case- and accent-insensitive
 * literal substring of the folded search text, whatever the term's length (one and two characters through the
 * prefix range, three and more through every trigram) and whatever characters it holds (regular-expression syntax
 * included). Checked on the in-memory store, which narrows the candidates through its multikey lookup of
 * `search_grams`, against `String.includes` over the folded texts. Seeded (FAST_CHECK_SEED replays) and bounded.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { catalogueFilter, CatalogueQuery } from '../../../shared/read-model/public-api/operations/catalogue.operation.ts';
import { fold } from '../../../shared/text/fold.ts';
import { searchGrams } from '../../../shared/text/grams.ts';

const SEED = Number(process.env['FAST_CHECK_SEED'] ?? 20261124);
/** Few letters, so that terms often occur; accents, case, spaces and regular-expression syntax. */
const CHARS = ['a', 'b', 'é', 'E', 'Ä', ' ', '.', '*', '(', '+', ')', '$', '-', 'œ'];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((chars) => chars.join(''));

function query(search: string): CatalogueQuery {
  return { lang: 'en', collection: '', search, min_price: 0, max_price: 0, in_stock: false, sort: 'name', limit: 100, offset: 0 };
}

describe('catalogue search through the gram index', () => {
  it('finds and counts exactly the watches whose folded text contains the folded term', async function () {
    this.timeout(20_000);
    console.log(`      seed ${SEED}`);
    await fc.assert(fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 12 }), fc.array(text, { minLength: 1, maxLength: 6 }), async (texts, terms) => {
      const store = createMemoryReadStore();
      await store.write('watches', texts.map((raw, i) => {
        const search_text = fold(raw);
        return { put: { _id: `en:W-${i}`, lang: 'en', reference: `W-${i}`, sort_name: `w-${i}`, search_text, search_grams: searchGrams(search_text), position: 1 } };
      }));
      // Terms taken from the texts as well as random ones, so that most of them match something.
      for (const term of [...terms, ...texts.map((raw) => raw.slice(1, 3)), ...texts.map((raw) => raw.slice(0, 1))]) {
        if (term === '') continue;
        const expected = texts.flatMap((raw, i) => (fold(raw).includes(fold(term)) ? [`W-${i}`] : [])).sort();
        const filter = catalogueFilter(query(term));
        const found = (await store.find<{ _id: string; reference: string; position: number }>('watches', filter)).map((doc) => doc.reference).sort();
        expect(found, `search ${JSON.stringify(term)} in ${JSON.stringify(texts)}`).to.deep.equal(expected);
        expect(await store.count('watches', filter), `count of ${JSON.stringify(term)}`).to.equal(expected.length);
      }
    }), { seed: SEED, numRuns: 150 });
  });

  it('holds every trigram of the text, and its last two characters and last one', () => {
    expect(searchGrams('abcd').sort()).to.deep.equal(['abc', 'bcd', 'cd', 'd'].sort());
    expect(searchGrams('ab').sort()).to.deep.equal(['ab', 'b']);
    expect(searchGrams('')).to.deep.equal([]);
  });
});
