/**
 * The ReadStore contract: every adapter's spec file calls `readStoreContract` with a factory, so the in-memory
 * store and MongoDB answer to the very same tests. Each test gets a fresh, empty store.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { FIRST_GENERATION, WriteConflictError, type ReadStore, type StoredDoc, type WriteOp } from '../../shared/ports/read-store.ts';
import { escapeRegExp } from '../../shared/text/fold.ts';

export interface Item extends StoredDoc {
  lang: 'en' | 'fr';
  reference: string;
  name: string;
  price_cents: number;
  collection: { code: string };
  tags?: string[];
}

export function item(reference: string, fields: Partial<Item> = {}): Item {
  return {
    _id: `en:${reference}`, lang: 'en', reference, name: `Watch ${reference}`, price_cents: 1000,
    collection: { code: 'regate' }, position: 1, ...fields,
  };
}

const ids = (docs: StoredDoc[]) => docs.map((doc) => doc._id);

export function readStoreContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`ReadStore contract: ${name}`, function () {
    let store: ReadStore;
    beforeEach(async function () {
      store = await factory();
    });
    afterEach(async function () {
      await store?.close();
    });

    describe('writes and keys', function () {
      it('a put document is read back by get and getMany, in the order asked, leaving out unknown ids', async function () {
        await store.write('watches', [{ put: item('A') }, { put: item('B') }]);
        expect(await store.get('watches', 'en:A')).to.deep.equal(item('A'));
        expect(await store.get('watches', 'en:Z')).to.equal(null);
        expect(ids(await store.getMany('watches', ['en:B', 'en:Z', 'en:A']))).to.deep.equal(['en:B', 'en:A']);
      });

      it('collections are separate namespaces', async function () {
        await store.write('watches', [{ put: item('A') }]);
        expect(await store.get('collections', 'en:A')).to.equal(null);
      });

      it('a put replaces the whole document when its position is higher', async function () {
        await store.write('watches', [{ put: item('A', { tags: ['x'] }) }]);
        await store.write('watches', [{ put: item('A', { name: 'New', position: 2 }) }]);
        expect(await store.get('watches', 'en:A')).to.deep.equal(item('A', { name: 'New', position: 2 }));
      });

      it('a put is skipped when the stored document has the same or a later position', async function () {
        await store.write('watches', [{ put: item('A', { name: 'Five', position: 5 }) }]);
        await store.write('watches', [{ put: item('A', { name: 'Same', position: 5 }) }, { put: item('A', { name: 'Old', position: 3 }) }]);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('Five');
      });

      it('a skipped put does not stop the writes after it in the same bulk', async function () {
        await store.write('watches', [{ put: item('A', { position: 5 }) }]);
        await store.write('watches', [{ put: item('A', { name: 'Old', position: 3 }) }, { put: item('B', { position: 6 }) }]);
        expect(ids(await store.getMany('watches', ['en:A', 'en:B']))).to.deep.equal(['en:A', 'en:B']);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('Watch A');
      });

      it('the writes of one bulk apply in order', async function () {
        await store.write('watches', [
          { put: item('A', { name: 'First', position: 1 }) },
          { put: item('A', { name: 'Second', position: 2 }) },
          { put: item('B', { position: 1 }) },
          { delete: { _id: 'en:B', position: 2 } },
        ]);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('Second');
        expect(await store.get('watches', 'en:B')).to.equal(null);
      });

      it('a delete removes a document stored at a lower position only', async function () {
        await store.write('watches', [{ put: item('A', { position: 4 }) }, { put: item('B', { position: 4 }) }]);
        await store.write('watches', [{ delete: { _id: 'en:A', position: 5 } }, { delete: { _id: 'en:B', position: 4 } }]);
        expect(await store.get('watches', 'en:A')).to.equal(null);
        expect(await store.get('watches', 'en:B')).to.not.equal(null);
      });

      it('both position guards hold for any order of puts and deletes, one by one and replayed as one bulk', async function () {
        this.timeout(60_000);
        // The port's rule, applied here one write at a time to a map: a write lands only where nothing is stored or
        // what is stored (a document, or the tombstone a delete leaves) is at a lower position; a delete leaves a
        // tombstone, which readers do not see. Equal positions are frequent.
        const op = fc.record({ kind: fc.constantFrom('put', 'delete'), id: fc.constantFrom('A', 'B'), position: fc.integer({ min: 1, max: 4 }), name: fc.constantFrom('x', 'y') });
        let run = 0;
        await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 10 }), async (generated) => {
          run += 1;
          const writes: WriteOp[] = generated.map(({ kind, id, position, name }) => {
            const _id = `run${run}:${id}`;
            return kind === 'put' ? { put: item(id, { _id, name, position }) } : { delete: { _id, position } };
          });
          const model = new Map<string, { name: string | null; position: number }>();
          for (const write of [...writes, ...writes]) {
            const [id, position, name] = 'put' in write ? [write.put._id, write.put.position, (write.put as Item).name] : [write.delete._id, write.delete.position, null];
            if ((model.get(id)?.position ?? 0) < position) model.set(id, { name, position });
          }
          const expected = new Map([...model].filter(([, doc]) => doc.name !== null));
          for (const write of writes) await store.write('watches', [write]);
          if (writes.length > 0) await store.write('watches', writes);
          for (const id of ['A', 'B'].map((ref) => `run${run}:${ref}`)) {
            const stored = await store.get<Item>('watches', id);
            expect(stored === null ? null : { name: stored.name, position: stored.position }, `${id} after ${JSON.stringify(generated)}`).to.deep.equal(expected.get(id) ?? null);
          }
        }), { numRuns: 60 });
      });

      it('a delete of an absent document stores nothing a reader sees', async function () {
        await store.write('watches', [{ delete: { _id: 'en:Z', position: 9 } }]);
        expect(await store.count('watches', {})).to.equal(0);
        expect(await store.find('watches', {})).to.deep.equal([]);
        expect(await store.get('watches', 'en:Z')).to.equal(null);
      });

      it('a document read cannot be changed by its reader, nor by the writer after the write', async function () {
        const written = item('A', { tags: ['steel'] });
        await store.write('watches', [{ put: written }]);
        written.name = 'changed by writer';
        written.tags!.push('changed');
        const read = (await store.get<Item>('watches', 'en:A'))!;
        const [found] = await store.find<Item>('watches', { reference: 'A' });
        for (const doc of [read, found!]) {
          try {
            doc.name = 'changed by reader';
            doc.collection.code = 'changed';
            doc.tags!.push('changed');
          } catch {
            // a frozen document refuses the change: as good as a copy
          }
        }
        expect(await store.get('watches', 'en:A')).to.deep.equal(item('A', { tags: ['steel'] }));
      });
    });

    describe('never backwards', function () {
      it('a delete leaves a tombstone that an older put cannot pass, and a newer one can', async function () {
        await store.write('watches', [{ put: item('A', { position: 3 }) }]);
        await store.write('watches', [{ delete: { _id: 'en:A', position: 4 } }]);
        // The stale put of issue 20 (case 2): position 3 landing after the delete at 4.
        await store.write('watches', [{ put: item('A', { name: 'stale', position: 3 }) }]);
        expect(await store.get('watches', 'en:A')).to.equal(null);
        expect(await store.count('watches', {})).to.equal(0);
        await store.write('watches', [{ put: item('A', { name: 'back', position: 5 }) }]);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('back');
      });

      it('writers see tombstones through getStored; readers never do (get, getMany, find, count)', async function () {
        await store.write('watches', [{ put: item('A', { position: 1 }) }, { put: item('B', { position: 1 }) }, { delete: { _id: 'en:A', position: 2 } }]);
        expect(await store.generation('watches', FIRST_GENERATION).getStored(['en:A', 'en:B', 'en:Z']))
          .to.deep.equal([{ _id: 'en:A', position: 2, _deleted: true }, item('B', { position: 1 })]);
        expect(await store.get('watches', 'en:A')).to.equal(null);
        expect(ids(await store.getMany('watches', ['en:A', 'en:B']))).to.deep.equal(['en:B']);
        expect(ids(await store.find('watches', {}))).to.deep.equal(['en:B']);
        expect(ids(await store.find('watches', { _id: 'en:A' }))).to.deep.equal([]);
        expect(await store.count('watches', {})).to.equal(1);
        expect(await store.count('watches', { position: 2 })).to.equal(0);
      });

      it('a compare-and-set write lands only on the position the writer read, tombstones and absence included', async function () {
        await store.write('watches', [{ put: item('A', { position: 4 }) }, { put: item('B', { position: 1 }) }, { delete: { _id: 'en:B', position: 2 } }]);
        await store.write('watches', [
          { put: item('A', { name: 'A5', position: 5 }), expected: 4 },
          { put: item('B', { name: 'B6', position: 6 }), expected: 2 },
          { put: item('C', { name: 'C7', position: 7 }), expected: null },
        ]);
        const names = async () => (await store.getMany<Item>('watches', ['en:A', 'en:B', 'en:C'])).map((doc) => `${doc._id}=${doc.name}`);
        expect(await names()).to.deep.equal(['en:A=A5', 'en:B=B6', 'en:C=C7']);
      });

      it('a compare-and-set write built on a stale read is refused with a conflict; the writes before it stay', async function () {
        await store.write('watches', [{ put: item('A', { name: 'A4', position: 4 }) }, { put: item('B', { name: 'B4', position: 4 }) }]);
        // A writer that read A at 3 while another already wrote it at 4 (issue 20: D@3 must not land after D@4).
        const conflict = await store.write('watches', [
          { put: item('B', { name: 'B6', position: 6 }), expected: 4 },
          { put: item('A', { name: 'A5', position: 5 }), expected: 3 },
        ]).then(() => undefined, (error: unknown) => error);
        expect(conflict).to.be.instanceOf(WriteConflictError);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('A4');
        expect((await store.get<Item>('watches', 'en:B'))?.name).to.equal('B6');
      });

      it('an insert of a document that another writer inserted meanwhile is a conflict, not a skipped write', async function () {
        await store.write('watches', [{ put: item('A', { name: 'first', position: 3 }) }]);
        const conflict = await store.write('watches', [{ put: item('A', { name: 'second', position: 4 }), expected: null }])
          .then(() => undefined, (error: unknown) => error);
        expect(conflict).to.be.instanceOf(WriteConflictError);
        expect((await store.get<Item>('watches', 'en:A'))?.name).to.equal('first');
      });

      it('of two writers inserting one new document at once, the newer position wins whichever lands first', async function () {
        const references = Array.from({ length: 12 }, (_, index) => `N${index}`);
        await Promise.all(references.flatMap((reference, index) => {
          const older = store.write('watches', [{ put: item(reference, { name: 'older', position: 4 }) }]);
          const newer = store.write('watches', [{ put: item(reference, { name: 'newer', position: 5 }) }]);
          return index % 2 === 0 ? [older, newer] : [newer, older];
        }));
        const stored = await store.getMany<Item>('watches', references.map((reference) => `en:${reference}`));
        expect(stored.map((doc) => `${doc.reference}@${doc.position}:${doc.name}`)).to.deep.equal(references.map((reference) => `${reference}@5:newer`));
      });
    });

    describe('control documents', function () {
      it('setControl inserts only when asked, replaces only a document matching the condition, and readControl reads them all', async function () {
        expect(await store.setControl({ _id: 'x', version: 1 }, {}, false), 'no insert unless asked').to.equal(false);
        expect(await store.setControl({ _id: 'x', version: 1 }, { version: 0 }, true)).to.equal(true);
        expect(await store.setControl({ _id: 'x', version: 9 }, { version: 0 }, true), 'a stored one that does not match').to.equal(false);
        expect(await store.setControl({ _id: 'x', version: 2, note: 'n' }, { version: 1 }, false)).to.equal(true);
        expect(await store.setControl({ _id: 'y', token: 1 }, { token: { $lt: 1 } }, true)).to.equal(true);
        const docs = (await store.readControl()).sort((a, b) => a._id.localeCompare(b._id));
        expect(docs).to.deep.equal([{ _id: 'x', version: 2, note: 'n' }, { _id: 'y', token: 1 }]);
      });

      it('setControl tells `onWritten` of a write readers can see, by the time it answers, and of none it refused', async function () {
        const told: string[] = [];
        expect(await store.setControl({ _id: 'x', version: 1 }, {}, false, () => told.push('no insert')), 'no insert unless asked').to.equal(false);
        expect(await store.setControl({ _id: 'x', version: 1 }, {}, true, () => told.push('inserted'))).to.equal(true);
        expect(await store.setControl({ _id: 'x', version: 9 }, { version: 0 }, false, () => told.push('not matching'))).to.equal(false);
        expect(await store.setControl({ _id: 'x', version: 2 }, { version: 1 }, false, () => told.push('replaced'))).to.equal(true);
        expect(told).to.deep.equal(['inserted', 'replaced']);
      });

      it('removeControl removes one control document', async function () {
        await store.setControl({ _id: 'x', version: 1 }, {}, true);
        await store.setControl({ _id: 'y', version: 1 }, {}, true);
        await store.removeControl('x');
        expect((await store.readControl()).map((doc) => doc._id)).to.deep.equal(['y']);
        expect(await store.setControl({ _id: 'x', version: 2 }, { version: 1 }, false), 'a late write to it').to.equal(false);
      });

      it('of many compare-and-set writes racing on one version, exactly one wins', async function () {
        await store.setControl({ _id: 'race', version: 0 }, {}, true);
        const results = await Promise.all(Array.from({ length: 8 }, (_, index) => store.setControl({ _id: 'race', version: 1, by: index }, { version: 0 }, false)));
        expect(results.filter(Boolean)).to.have.length(1);
      });
    });

    describe('queries', function () {
      const catalogue = [
        item('RG-1', { name: 'Regate', price_cents: 1500, collection: { code: 'regate' } }),
        item('RG-2', { name: 'Regate Chrono', price_cents: 2500, collection: { code: 'regate' } }),
        item('HE-1', { name: 'Heritage (a+)+$ .*', price_cents: 1500, collection: { code: 'heritage' } }),
        item('HE-2', { name: 'Heritage aaaa', price_cents: 900, collection: { code: 'heritage' }, tags: ['gold', 'limited'] }),
        item('RG-1', { _id: 'fr:RG-1', lang: 'fr', name: 'Régate', price_cents: 1500 }),
      ];
      beforeEach(async function () {
        await store.write('watches', catalogue.map((doc) => ({ put: doc })));
      });
      const found = async (filter: Record<string, unknown>) =>
        ids(await store.find('watches', filter, { sort: { _id: 1 } }));

      it('filters by equality, $eq, $ne and $in', async function () {
        expect(await found({ lang: 'fr' })).to.deep.equal(['fr:RG-1']);
        expect(await found({ lang: { $eq: 'en' }, reference: 'HE-1' })).to.deep.equal(['en:HE-1']);
        expect(await found({ lang: 'en', reference: { $ne: 'RG-1' } })).to.deep.equal(['en:HE-1', 'en:HE-2', 'en:RG-2']);
        expect(await found({ reference: { $in: ['HE-2', 'RG-2', 'XX'] } })).to.deep.equal(['en:HE-2', 'en:RG-2']);
      });

      it('filters by a nested field', async function () {
        expect(await found({ lang: 'en', 'collection.code': 'heritage' })).to.deep.equal(['en:HE-1', 'en:HE-2']);
        expect(await found({ 'collection.code': 'unknown' })).to.deep.equal([]);
      });

      it('filters by a price range with $gte and $lte, bounds included', async function () {
        expect(await found({ lang: 'en', price_cents: { $gte: 1500, $lte: 2500 } })).to.deep.equal(['en:HE-1', 'en:RG-1', 'en:RG-2']);
        expect(await found({ lang: 'en', price_cents: { $gt: 900, $lt: 2500 } })).to.deep.equal(['en:HE-1', 'en:RG-1']);
      });

      it('matches an escaped $regex literally, metacharacters included', async function () {
        expect(await found({ name: { $regex: escapeRegExp('(a+)+$ .*') } })).to.deep.equal(['en:HE-1']);
        expect(await found({ name: { $regex: escapeRegExp('.*') } })).to.deep.equal(['en:HE-1']);
        expect(await found({ name: { $regex: 'chrono', $options: 'i' } })).to.deep.equal(['en:RG-2']);
      });

      it('matches a field holding an array by any of its elements', async function () {
        expect(await found({ tags: 'limited' })).to.deep.equal(['en:HE-2']);
        expect(await found({ tags: { $in: ['gold'] }, lang: 'en' })).to.deep.equal(['en:HE-2']);
      });

      it('combines conditions with $or and $and', async function () {
        expect(await found({ $or: [{ reference: 'RG-2' }, { price_cents: { $lt: 1000 } }] })).to.deep.equal(['en:HE-2', 'en:RG-2']);
        expect(await found({ $and: [{ lang: 'en' }, { 'collection.code': 'regate' }] })).to.deep.equal(['en:RG-1', 'en:RG-2']);
      });

      it('sorts by several keys, ascending and descending, ties broken by the next key', async function () {
        const byPrice = await store.find('watches', { lang: 'en' }, { sort: { price_cents: -1, reference: 1 } });
        expect(ids(byPrice)).to.deep.equal(['en:RG-2', 'en:HE-1', 'en:RG-1', 'en:HE-2']);
        const byCollection = await store.find('watches', { lang: 'en' }, { sort: { 'collection.code': 1, price_cents: 1, reference: -1 } });
        expect(ids(byCollection)).to.deep.equal(['en:HE-2', 'en:HE-1', 'en:RG-1', 'en:RG-2']);
      });

      it('pages with skip and limit after sorting, and count ignores paging', async function () {
        const sort = { price_cents: 1, reference: 1 } as const;
        expect(ids(await store.find('watches', { lang: 'en' }, { sort, skip: 1, limit: 2 }))).to.deep.equal(['en:HE-1', 'en:RG-1']);
        expect(ids(await store.find('watches', { lang: 'en' }, { sort, skip: 3, limit: 2 }))).to.deep.equal(['en:RG-2']);
        expect(await store.find('watches', { lang: 'en' }, { sort, skip: 10 })).to.deep.equal([]);
        // The largest offset the catalogue takes (2^53 - 1): an empty page, not an engine's error.
        expect(await store.find('watches', { lang: 'en' }, { sort, skip: Number.MAX_SAFE_INTEGER, limit: 2 })).to.deep.equal([]);
        expect(await store.count('watches', { lang: 'en' })).to.equal(4);
        expect(await store.count('watches', { lang: 'en', price_cents: { $gte: 1500 } })).to.equal(3);
      });

      it('a query asked again after a write sees that write', async function () {
        const sort = { price_cents: 1, reference: 1 } as const;
        const filter = { lang: 'en', 'collection.code': 'regate' };
        expect(ids(await store.find('watches', filter, { sort }))).to.deep.equal(['en:RG-1', 'en:RG-2']);
        expect(await store.count('watches', filter)).to.equal(2);
        await store.write('watches', [
          { put: item('RG-3', { price_cents: 100, collection: { code: 'regate' } }) },
          { put: item('RG-2', { price_cents: 50, collection: { code: 'regate' }, position: 2 }) },
          { delete: { _id: 'en:RG-1', position: 2 } },
        ]);
        expect(ids(await store.find('watches', filter, { sort }))).to.deep.equal(['en:RG-2', 'en:RG-3']);
        expect(await store.count('watches', filter)).to.equal(2);
        await store.write('watches', [{ put: item('RG-3', { collection: { code: 'heritage' }, position: 3 }) }]);
        expect(await store.count('watches', filter)).to.equal(1);
      });

      it('never runs code from a $where, $function or $expr filter', async function () {
        const marker = '__readStoreContractRan';
        const scripts = [
          { $where: `globalThis.${marker} = true` },
          { $where: `function () { globalThis.${marker} = true; return true; }` },
          { $expr: { $function: { body: `function () { globalThis.${marker} = true; return true; }`, args: [], lang: 'js' } } },
          { lang: 'en', $and: [{ $where: `globalThis.${marker} = true` }] },
        ];
        for (const filter of scripts) {
          let refused = false;
          await store.find('watches', filter).catch(() => (refused = true));
          expect(refused, JSON.stringify(filter)).to.equal(true);
          refused = false;
          await store.count('watches', filter).catch(() => (refused = true));
          expect(refused, JSON.stringify(filter)).to.equal(true);
        }
        expect((globalThis as Record<string, unknown>)[marker]).to.equal(undefined);
      });
    });
  });
}
