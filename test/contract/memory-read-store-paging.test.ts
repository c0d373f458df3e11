/**
 * The in-memory store answers paged sorted queries by walking orders it keeps through writes, and counts from its
 * indexes or from counts it keeps through writes. These prove the answers stay those of the plain way (every match
 * found with mingo, stably sorted in write order, then paged) while documents are put, rewritten and deleted.
 */
import { expect } from 'chai';
import { Query } from 'mingo';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { sortDocs } from '../../shared/adapters/memory-read-store/sort-order.ts';
import type { Filter, Sort, WriteOp } from '../../shared/ports/read-store.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';

// A type literal, not an interface: mingo takes it as a plain record.
type Watch = {
  _id: string;
  position: number;
  lang: string;
  reference: string;
  collection: { code: string };
  price_cents: number;
  sort_name: string;
  in_stock: boolean;
};

const FILTERS: Filter[] = [
  { lang: 'en' },
  { lang: 'fr', 'collection.code': 'b' },
  { 'collection.code': 'a' },
  { lang: 'en', price_cents: { $gte: 3, $lte: 6 } },
  { lang: 'fr', in_stock: true, sort_name: { $regex: 'o' } },
];
// Few distinct prices and names: many ties, broken by the next key or, without one, by write order.
const SORTS: Sort[] = [{ sort_name: 1, reference: 1 }, { price_cents: -1 }, { 'collection.code': 1, sort_name: 1 }];
const PAGES = [{ skip: 0, limit: 20 }, { skip: 150, limit: 40 }];

describe('in-memory read store: paged queries and counts through writes', function () {
  it('pages and counts equal those of a plain filter and stable sort in write order, after every bulk of random writes', async function () {
    for (const seed of [11, 12]) {
      const random = seededRandom(seed);
      const store = createMemoryReadStore();
      // The model: the live documents in write order (a rewrite moves one to the end, as index groups do).
      const live = new Map<string, Watch>();
      let position = 0;
      for (let round = 0; round < 10; round += 1) {
        // A first bulk large enough for the store to walk its orders, then smaller bulks that rewrite and delete.
        const ops: WriteOp[] = [];
        for (let i = 0; i < (round === 0 ? 1_200 : 80); i += 1) {
          const reference = `R${between(random, 0, 700)}`;
          const lang = random() < 0.5 ? 'en' : 'fr';
          const _id = `${lang}:${reference}`;
          position += 1;
          live.delete(_id);
          if (round > 0 && random() < 0.25) {
            ops.push({ delete: { _id, position } });
            continue;
          }
          const watch: Watch = {
            _id, lang, reference, position, collection: { code: ['a', 'b', 'c'][between(random, 0, 2)]! },
            price_cents: between(random, 0, 9), sort_name: ['one', 'two', 'four'][between(random, 0, 2)]!, in_stock: random() < 0.5,
          };
          live.set(_id, watch);
          ops.push({ put: watch });
        }
        await store.write('watches', ops);
        for (const filter of FILTERS) {
          const matches = [...live.values()].filter((doc) => new Query(filter).test(doc));
          expect(await store.count('watches', filter), `seed ${seed}, round ${round}: count ${JSON.stringify(filter)}`).to.equal(matches.length);
          for (const sort of SORTS) {
            const sorted = sortDocs(matches, sort).map((doc) => doc._id);
            for (const { skip, limit } of PAGES) {
              const page = await store.find('watches', filter, { sort, skip, limit });
              expect(page.map((doc) => doc._id), `seed ${seed}, round ${round}: ${JSON.stringify({ filter, sort, skip, limit })}`)
                .to.deep.equal(sorted.slice(skip, skip + limit));
            }
          }
        }
        // Every document under a sort that cannot tie (it ends with _id): walked from an order of the whole table.
        const all = sortDocs([...live.values()], { price_cents: 1, _id: 1 }).map((doc) => doc._id);
        const page = await store.find('watches', {}, { sort: { price_cents: 1, _id: 1 }, skip: 100, limit: 30 });
        expect(page.map((doc) => doc._id), `seed ${seed}, round ${round}: whole table`).to.deep.equal(all.slice(100, 130));
        expect(await store.count('watches', {})).to.equal(live.size);
      }
      await store.close();
    }
  });
});
