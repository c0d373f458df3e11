/**
 * One generation per request, on every read store: a rebuild's switch that lands between the reads of one request
 * (injected there by a wrapper of the store) leaves its answer wholly in the generation it started on.
 */
import { expect } from 'chai';
import { SnapshotExpiredError, type ReadStore, type ReadView, type StoredDoc } from '../../shared/ports/read-store.ts';
import { reserveGeneration, switchGenerations } from '../../shared/read-model/projections/generations.ts';
import { WATCHES, collectionDoc, loadFixtureCatalogue, memberDoc, watchDoc } from '../api/support/catalogue-fixture.ts';
import { startTestApp } from '../api/support/test-app.ts';

/**
 * `store` whose reads run the switch once the first `find` of a request has read, and make every later read of
 * that request wait for it: the first read sees the old generation, the others run after the switch.
 */
function switchAfterFirstFind(store: ReadStore, doSwitch: () => Promise<void>): ReadStore {
  let switched: Promise<void> | undefined;
  let started = false;
  let release!: () => void;
  const done = new Promise<void>((resolve) => { release = resolve; });
  const after = async <T>(read: () => Promise<T>): Promise<T> => {
    await done;
    return read();
  };
  const hooked = (view: ReadView): ReadView => ({
    find: async (collection, filter, options) => {
      if (started) return after(() => view.find(collection, filter, options));
      started = true;
      const found = await view.find(collection, filter, options);
      switched = doSwitch().then(release);
      await switched;
      return found as never;
    },
    count: (collection, filter) => after(() => view.count(collection, filter)),
    get: (collection, id) => after(() => view.get(collection, id)),
    getMany: (collection, ids) => after(() => view.getMany(collection, ids)),
  });
  return {
    ...store, ...hooked(store),
    snapshot: async () => {
      const snapshot = await store.snapshot();
      return { ...hooked(snapshot), control: snapshot.control };
    },
  };
}

const doc = (id: string): StoredDoc => ({ _id: id, position: 1 });
const ids = (docs: StoredDoc[]) => docs.map((stored) => stored._id);

export function generationSnapshotContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`${name}: one generation per request`, function () {
    this.timeout(20_000);
    let store: ReadStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('a switch between the page and the total of one catalogue request: both come from one generation', async () => {
      await loadFixtureCatalogue(store);
      // The next generation holds one watch of the fixture's five.
      const next = await reserveGeneration(store);
      await store.resetGeneration('watches', next);
      await store.generation('watches', next).write([{ put: watchDoc(WATCHES[0]!, 'en') }]);
      const app = await startTestApp({ readStore: switchAfterFirstFind(store, async () => { await switchGenerations(store, ['watches'], next, {}); }) });
      try {
        const response = await fetch(`${app.url}/api/public/catalogue?lang=en`);
        expect(response.status).to.equal(200);
        const body = await response.json() as { watches: { reference: string }[]; total: number };
        const references = body.watches.map((watch) => watch.reference).sort();
        const old = WATCHES.map((watch) => watch.reference).sort();
        expect([old, [WATCHES[0]!.reference]], 'the page is one generation\'s').to.deep.include(references);
        expect(body.total, 'the total counts the page\'s generation').to.equal(references.length);
      } finally {
        await app.close();
      }
    });

    it('a switch between the collections and their members\' figures of one request: all come from one generation', async () => {
      await loadFixtureCatalogue(store);
      // The next generation holds the Régate collection and its members only.
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      const regate = WATCHES.filter((watch) => watch.collection === 'regate');
      await store.generation('collections', next).write([collectionDoc('regate', 'en'), ...regate.map(memberDoc)].map((put) => ({ put })));
      const app = await startTestApp({ readStore: switchAfterFirstFind(store, async () => { await switchGenerations(store, ['collections'], next, {}); }) });
      try {
        const response = await fetch(`${app.url}/api/public/collections?lang=en`);
        expect(response.status).to.equal(200);
        const body = await response.json() as { collections: { code: string; product_count: number }[] };
        const counts = body.collections.map(({ code, product_count }) => [code, product_count]);
        const old = [['abysse', 0], ['heritage', 2], ['regate', 3]];
        expect([old, [['regate', regate.length]]], 'the answer is one generation\'s').to.deep.include(counts);
      } finally {
        await app.close();
      }
    });

    it('a snapshot taken before a switch reads its generation whole after the switch and its drop, or is refused', async () => {
      await store.write('watches', [{ put: doc('a') }, { put: doc('b') }]);
      const next = await reserveGeneration(store);
      await store.resetGeneration('watches', next);
      await store.generation('watches', next).write([{ put: doc('c') }]);
      const before = await store.snapshot();
      const replaced = await switchGenerations(store, ['watches'], next, {});
      await store.dropGeneration('watches', replaced.get('watches')!);
      const read = await before.find('watches', {}, { sort: { _id: 1 } }).then(ids, (error: unknown) => error);
      // The in-memory store keeps a dropped table for the snapshots holding it; MongoDB refuses a snapshot older
      // than the drop delay allows, instead of reading a dropped (empty) collection.
      if (!(read instanceof SnapshotExpiredError)) expect(read, 'the old generation, whole').to.deep.equal(['a', 'b']);
      expect(ids(await (await store.snapshot()).find('watches', {}, { sort: { _id: 1 } })), 'a new snapshot: the new generation').to.deep.equal(['c']);
    });
  });
}
