/**
 * The ReadStore contract, generations: a rebuild's generation is invisible to readers until the pointer switches to
 * it, then replaces the old one whole; writes to a generation switched away from are refused, and so are writes
 * fenced by a lease token once a newer one is recorded. Every adapter's spec
 * file calls `generationsContract` with a factory, as it calls `readStoreContract`; each test gets a fresh store.
 */
import { expect } from 'chai';
import { FIRST_GENERATION, FencedWriteError, StaleGenerationError, type ReadStore, type StoredDoc } from '../../shared/ports/read-store.ts';
import { newCheckpoint } from '../../shared/read-model/projections/control-docs.ts';
import { recordLeaseToken, reserveGeneration, switchGenerations } from '../../shared/read-model/projections/generations.ts';
import { item, type Item } from './read-store.contract.ts';

const ids = (docs: StoredDoc[]) => docs.map((doc) => doc._id);

export function generationsContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`ReadStore contract, generations: ${name}`, function () {
    let store: ReadStore;
    beforeEach(async function () {
      store = await factory();
    });
    afterEach(async function () {
      await store?.close();
    });

  describe('generations', function () {
    beforeEach(async function () {
      await store.write('collections', [{ put: item('OLD', { _id: 'en:old' }) }]);
    });

    it('a generation being built is invisible to readers until the pointer switches to it, then replaces the old one whole', async function () {
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      const target = store.generation('collections', next);
      await target.write([{ put: item('N1', { _id: 'en:n1' }) }, { put: item('N2', { _id: 'en:n2' }) }]);
      expect(ids(await target.find({}, { sort: { _id: 1 } }))).to.deep.equal(['en:n1', 'en:n2']);
      expect(ids(await target.getStored(['en:n2', 'en:old']))).to.deep.equal(['en:n2']);
      expect(ids(await store.find('collections', {}))).to.deep.equal(['en:old']);
      const replaced = await switchGenerations(store, ['collections'], next, {});
      expect(ids(await store.find('collections', {}, { sort: { _id: 1 } }))).to.deep.equal(['en:n1', 'en:n2']);
      expect(await store.get('collections', 'en:old')).to.equal(null);
      expect([...replaced]).to.deep.equal([['collections', FIRST_GENERATION]]);
    });

    it('after a switch the store writes the new generation with the position rule, and refuses writes to the old one', async function () {
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      await store.generation('collections', next).write([{ put: item('N1', { _id: 'en:n1', position: 7 }) }]);
      await switchGenerations(store, ['collections'], next, {});
      await store.write('collections', [{ put: item('N1', { _id: 'en:n1', name: 'stale', position: 6 }) }]);
      expect((await store.get<Item>('collections', 'en:n1'))?.name).to.equal('Watch N1');
      expect(await store.count('collections', { lang: 'en' })).to.equal(1);
      const stale = await store.generation('collections', FIRST_GENERATION).write([{ put: item('LATE', { _id: 'en:late', position: 9 }) }])
        .then(() => undefined, (error: unknown) => error);
      expect(stale).to.be.instanceOf(StaleGenerationError);
      expect(await store.get('collections', 'en:late')).to.equal(null);
    });

    it('a dropped generation is gone and readers keep the live one; the live one cannot be dropped', async function () {
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      await store.generation('collections', next).write([{ put: item('N1', { _id: 'en:n1' }) }]);
      await store.dropGeneration('collections', next);
      expect(await store.generation('collections', next).find({})).to.deep.equal([]);
      expect(ids(await store.find('collections', {}))).to.deep.equal(['en:old']);
      let refused = false;
      await store.dropGeneration('collections', FIRST_GENERATION).catch(() => (refused = true));
      expect(refused).to.equal(true);
    });

    it('reserved generations are never handed out twice and never go back', async function () {
      const first = await reserveGeneration(store);
      const second = await reserveGeneration(store);
      expect(first).to.be.above(FIRST_GENERATION);
      expect(second).to.be.above(first);
      await switchGenerations(store, ['serials'], second, {});
      let refused = false;
      await switchGenerations(store, ['serials'], first, {}).catch(() => (refused = true));
      expect(refused, 'a switch to an older generation').to.equal(true);
      expect(await reserveGeneration(store)).to.be.above(second);
    });

    it('a switch of one collection leaves the others alone', async function () {
      await store.write('watches', [{ put: item('A') }]);
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      await switchGenerations(store, ['collections'], next, {});
      expect(await store.get('watches', 'en:A')).to.not.equal(null);
      expect(await store.count('collections', {})).to.equal(0);
    });

    it('a generation handed its documents keeps them as they were written', async function () {
      const next = await reserveGeneration(store);
      await store.resetGeneration('collections', next);
      const written = item('N1', { _id: 'en:n1', tags: ['steel'] });
      await store.generation('collections', next).write([{ put: written }], { handOver: true });
      try {
        written.name = 'changed by writer';
        written.tags!.push('changed');
      } catch {
        // a document frozen in place refuses the change: as good as a copy
      }
      await switchGenerations(store, ['collections'], next, {});
      expect(await store.get('collections', 'en:n1')).to.deep.equal(item('N1', { _id: 'en:n1', tags: ['steel'] }));
    });

    it('a write fenced by a lease token lands while that token is the latest recorded, and is refused, adding nothing, once a newer one is', async function () {
      const live = store.generation('collections', FIRST_GENERATION);
      expect(await recordLeaseToken(store, 'collections', 3)).to.equal(true);
      await live.write([{ put: item('F1', { _id: 'en:f1' }) }], { fence: { projection: 'collections', token: 3 } });
      expect(await recordLeaseToken(store, 'collections', 4)).to.equal(true);
      const stale = await live.write([{ put: item('F2', { _id: 'en:f2' }) }], { fence: { projection: 'collections', token: 3 } })
        .then(() => undefined, (error: unknown) => error);
      expect(stale).to.be.instanceOf(FencedWriteError);
      expect(stale).to.deep.include({ newer: 4 });
      // Another projection's token fences nothing of this one.
      await live.write([{ put: item('F3', { _id: 'en:f3' }) }], { fence: { projection: 'watches', token: 1 } });
      expect(ids(await store.find('collections', {}, { sort: { _id: 1 } }))).to.deep.equal(['en:f1', 'en:f3', 'en:old']);
    });

    it('a write fenced by the checkpoint its owner stored lands while that checkpoint is at its position, and is refused, adding nothing, once it is elsewhere (a restored copy)', async function () {
      const live = store.generation('collections', FIRST_GENERATION);
      const checkpoint = newCheckpoint('collections', FIRST_GENERATION, 3, 40);
      expect(await store.setControl(checkpoint, { token: { $exists: false } }, true)).to.equal(true);
      const fence = { projection: 'collections', token: 3, checkpoint: { id: checkpoint._id, position: 40 } };
      await live.write([{ put: item('C1', { _id: 'en:c1' }) }], { fence });
      // Put back as an older copy holds it: the same token, an earlier position.
      expect(await store.setControl({ ...checkpoint, position: 25 }, { position: 40 }, false)).to.equal(true);
      const refused = await live.write([{ put: item('C2', { _id: 'en:c2' }) }], { fence }).then(() => undefined, (error: unknown) => error);
      expect(refused).to.be.instanceOf(FencedWriteError);
      expect((refused as Error).message).to.include('its checkpoint is at 25, not at 40');
      expect(ids(await store.find('collections', {}, { sort: { _id: 1 } }))).to.deep.equal(['en:c1', 'en:old']);
    });
  });
  });
}
