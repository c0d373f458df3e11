/**
 * How the MongoDB read store reads and writes projected documents on each engine (shared/adapters/mongodb-documents.ts,
 * issue 44). A MongoDB leg. FerretDB 1.24 hands a filter of `_id` alone down to SQLite and reads and decodes the
 * whole collection itself for any other: its `explain` says which (`filterPushdown`). Both ways of writing keep the position rule
 * and the compare-and-set when another writer inserts a document of a run of new ones, or moves a stored one on,
 * between the read and the write (a writer frozen there past its lease writes nothing).
 */
import { expect } from 'chai';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { FERRETDB_DOCUMENTS, MONGODB_DOCUMENTS, type DocumentAccess, type Stored } from '../../shared/adapters/mongodb-documents.ts';
import { WriteConflictError, type StoredDoc, type WriteOp } from '../../shared/ports/read-store.ts';
import { gate, within } from '../support/controlled-read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';

interface Named extends StoredDoc { name: string }
const named = (id: string, position: number, name: string): Named => ({ _id: id, position, name });

/** The operations of a collection that take a filter, and the filter of each (the first argument). */
const admitted = async () => undefined;
const FILTERED = new Set(['find', 'findOne', 'replaceOne', 'updateOne', 'updateMany', 'deleteOne', 'deleteMany', 'countDocuments']);

describeMongo('MongoDB documents: reads by id and writes on each engine', 'the document reads and writes of the MongoDB read store', (leg) => {
  let client: MongoClient;
  let collection: Collection<Stored>;
  beforeEach(async () => {
    client = await MongoClient.connect(leg.url);
    collection = client.db(leg.database('documents')).collection<Stored>('serials');
  });
  afterEach(() => client.close());

  /** `collection`, recording every call that takes a filter: its name and its filter (the first argument). */
  function recording(): { collection: Collection<Stored>; calls: Array<{ method: string; filter: Document }> } {
    const calls: Array<{ method: string; filter: Document }> = [];
    const recorded = new Proxy(collection, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        if (typeof key !== 'string' || !FILTERED.has(key) || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push({ method: key, filter: args[0] as Document });
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    return { collection: recorded, calls };
  }

  /** Whether FerretDB hands `filter` down to SQLite rather than reading and decoding the whole collection itself. */
  async function pushedDown(filter: Document): Promise<boolean> {
    const explained = await collection.find(filter).explain();
    return explained['filterPushdown'] === true;
  }

  it('on FerretDB every read of a document by id names `_id` alone, which FerretDB hands down to SQLite (the filters it replaced are read and decoded document by document); a replacement names the position it replaces', async function () {
    if ((await leg.engine()).name !== 'FerretDB') this.skip();
    await collection.insertMany(Array.from({ length: 50 }, (_, i) => named(`S${i}`, 1, 'seeded')));
    const { collection: recorded, calls } = recording();
    expect(await FERRETDB_DOCUMENTS.byId(recorded, 'S1')).to.deep.equal(named('S1', 1, 'seeded'));
    expect((await FERRETDB_DOCUMENTS.byIds(recorded, ['S3', 'missing', 'S2'])).map((doc) => doc._id)).to.deep.equal(['S3', 'S2']);
    await FERRETDB_DOCUMENTS.write(recorded, [
      { put: named('S1', 2, 'replaced') },
      { put: named('S2', 1, 'same position: skipped') },
      { delete: { _id: 'S3', position: 2 } },
      { put: named('S4', 2, 'compared'), expected: 1 },
      { put: named('N1', 2, 'new') },
      { put: named('N2', 2, 'new, compared'), expected: null },
    ], admitted);
    const reads = calls.filter((call) => call.method.startsWith('find'));
    expect(reads.length, 'reads sent').to.be.greaterThan(4);
    for (const { filter } of reads) expect(await pushedDown(filter), `handed down to SQLite: ${JSON.stringify(filter)}`).to.equal(true);
    for (const replaced of [{ _id: 'S1', _deleted: { $exists: false } }, { _id: { $in: ['S1', 'S2'] } }, { _id: 'S1', position: { $lt: 2 } }]) {
      expect(await pushedDown(replaced), `the whole collection decoded for ${JSON.stringify(replaced)}`).to.equal(false);
    }
    // Every document replaced was stored at position 1 (seeded): each replacement is refused if that moved on.
    expect(calls.filter((call) => call.method === 'replaceOne').map((call) => call.filter)).to.have.deep.members([
      { _id: 'S1', position: 1 }, { _id: 'S3', position: 1 }, { _id: 'S4', position: 1 },
    ]);
    const stored = await collection.find({}, { sort: { _id: 1 } }).toArray();
    expect(stored.filter((doc) => ['S1', 'S2', 'S3', 'S4', 'N1', 'N2'].includes(doc._id))).to.deep.equal([
      named('N1', 2, 'new'), named('N2', 2, 'new, compared'), named('S1', 2, 'replaced'), named('S2', 1, 'seeded'),
      { _id: 'S3', position: 2, _deleted: true }, named('S4', 2, 'compared'),
    ]);
  });

  it('on FerretDB compare-and-set replacements of stored documents, each its own, are sent at once; a conflict on one leaves the others written and fails the batch once none is in flight', async function () {
    if ((await leg.engine()).name !== 'FerretDB') this.skip();
    await collection.insertMany([named('en:W1', 1, 'stored'), named('fr:W1', 1, 'stored'), named('en:W2', 1, 'stored'), named('fr:W2', 1, 'stored')]);
    // The first replacement is held until the second was sent: one after the other, the batch would never end.
    const first = gate();
    const second = gate();
    let sent = 0;
    const writer = new Proxy(collection, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        if (key !== 'replaceOne' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          sent += 1;
          if (sent === 1) await first.pass();
          else second.pass();
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const both = FERRETDB_DOCUMENTS.write(writer, [
      { put: named('en:W1', 2, 'this writer'), expected: 1 }, { put: named('fr:W1', 2, 'this writer'), expected: 1 },
    ], admitted);
    await within(second.reached, 5_000, 'the second replacement, sent while the first is held');
    first.open();
    await both;
    // W2's French document moved on meanwhile (another writer): its replacement conflicts, the English one lands.
    await collection.replaceOne({ _id: 'fr:W2' }, named('fr:W2', 3, 'the other writer'));
    const conflicted = await FERRETDB_DOCUMENTS.write(collection, [
      { put: named('fr:W2', 2, 'this writer'), expected: 1 }, { put: named('en:W2', 2, 'this writer'), expected: 1 },
    ], admitted).then(() => undefined, (error: unknown) => error);
    expect(conflicted).to.be.instanceOf(WriteConflictError);
    expect((await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => `${doc._id}@${doc.position}:${(doc as Named).name}`)).to.deep.equal([
      'en:W1@2:this writer', 'en:W2@2:this writer', 'fr:W1@2:this writer', 'fr:W2@3:the other writer',
    ]);
    // Not at once: two writes of one document (the second builds on the first), and position-rule replacements.
    await FERRETDB_DOCUMENTS.write(collection, [
      { put: named('en:W1', 3, 'first'), expected: 2 }, { put: named('en:W1', 4, 'second, on the first'), expected: 3 },
    ], admitted);
    await FERRETDB_DOCUMENTS.write(collection, [{ put: named('fr:W1', 5, 'by position') }, { put: named('en:W2', 5, 'by position') }], admitted);
    expect((await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => `${doc._id}@${doc.position}:${(doc as Named).name}`)).to.deep.equal([
      'en:W1@4:second, on the first', 'en:W2@5:by position', 'fr:W1@5:by position', 'fr:W2@3:the other writer',
    ]);
  });

  for (const [engine, access] of [['FerretDB', FERRETDB_DOCUMENTS], ['MongoDB', MONGODB_DOCUMENTS]] as Array<[string, DocumentAccess]>) {
    describe(`written as on ${engine}`, () => {
      /** `collection` as a writer whose first write waits until another writer inserted `N2` (newer: position 6, or older: 3). */
      async function racedOnN2(ops: WriteOp[], otherPosition: number): Promise<unknown> {
        const held = gate();
        let first = true;
        const writer = new Proxy(collection, {
          get: (target, key) => {
            const value = Reflect.get(target, key) as unknown;
            if (!['insertOne', 'insertMany', 'replaceOne', 'bulkWrite'].includes(String(key)) || typeof value !== 'function') return value;
            return async (...args: unknown[]) => {
              if (first) {
                first = false;
                await held.pass();
              }
              return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            };
          },
        });
        const writing = access.write(writer, ops, admitted).then(() => undefined, (error: unknown) => error);
        await held.reached;
        await collection.insertOne(named('N2', otherPosition, 'the other writer'));
        held.open();
        return writing;
      }
      const run = (position: number, expected?: null): WriteOp[] =>
        ['N1', 'N2', 'N3'].map((id) => ({ put: named(id, position, 'this writer'), ...(expected === null ? { expected } : {}) }));
      const names = async () => (await collection.find({}, { sort: { _id: 1 } }).toArray()).map((doc) => `${doc._id}@${doc.position}:${(doc as Named).name}`);

      it('a run of new documents, one of which another writer inserts meanwhile: the newer of the two stands, the others are inserted', async () => {
        expect(await racedOnN2(run(5), 6)).to.equal(undefined);
        expect(await names()).to.deep.equal(['N1@5:this writer', 'N2@6:the other writer', 'N3@5:this writer']);
        await collection.deleteMany({});
        expect(await racedOnN2(run(5), 3)).to.equal(undefined);
        expect(await names()).to.deep.equal(['N1@5:this writer', 'N2@5:this writer', 'N3@5:this writer']);
      });

      it('a bulk its admission refuses (the generation and fence check) writes nothing, though reads ran beside it', async () => {
        await collection.insertOne(named('S1', 1, 'stored'));
        const refusal = new Error('fenced');
        const ops: WriteOp[] = [{ put: named('S1', 2, 'this writer'), expected: 1 }, { put: named('N1', 2, 'this writer'), expected: null }, { put: named('N2', 2, 'this writer') }];
        const refused = await access.write(collection, ops, async () => { throw refusal; }).then(() => undefined, (error: unknown) => error);
        expect(refused).to.equal(refusal);
        expect(await names()).to.deep.equal(['S1@1:stored']);
      });

      it('a run of compare-and-set inserts, one of which another writer inserts meanwhile: a conflict, the inserts before it stand, none after it is written', async () => {
        expect(await racedOnN2(run(5, null), 6)).to.be.instanceOf(WriteConflictError);
        expect(await names()).to.deep.equal(['N1@5:this writer', 'N2@6:the other writer']);
      });

      /**
       * `ops` written by a writer held just before it replaces a stored document (a worker frozen past its lease after
       * its admission and its reads: SIGSTOP in test/reliability/scale-topology.test.ts), while another writer moves
       * S1 from position 1 on to 7; what the held writer's write answers once let go.
       */
      async function heldBeforeReplacingS1(ops: WriteOp[]): Promise<unknown> {
        await collection.insertOne(named('S1', 1, 'stored'));
        const held = gate();
        const writer = new Proxy(collection, {
          get: (target, key) => {
            const value = Reflect.get(target, key) as unknown;
            if (!['replaceOne', 'bulkWrite'].includes(String(key)) || typeof value !== 'function') return value;
            return async (...args: unknown[]) => {
              await held.pass();
              return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            };
          },
        });
        const writing = access.write(writer, ops, admitted).then(() => undefined, (error: unknown) => error);
        await held.reached;
        await collection.replaceOne({ _id: 'S1' }, named('S1', 7, 'the other writer'));
        held.open();
        return writing;
      }

      it('a compare-and-set held after its admission and its read while another writer moves the document on: a conflict, and the newer document stands', async () => {
        expect(await heldBeforeReplacingS1([{ put: named('S1', 2, 'this writer'), expected: 1 }])).to.be.instanceOf(WriteConflictError);
        expect(await names()).to.deep.equal(['S1@7:the other writer']);
      });

      it('a position-rule write held after its admission and its read while another writer moves the document past it: skipped, the newer document stands', async () => {
        expect(await heldBeforeReplacingS1([{ put: named('S1', 2, 'this writer') }])).to.equal(undefined);
        expect(await names()).to.deep.equal(['S1@7:the other writer']);
      });
    });
  }
});
