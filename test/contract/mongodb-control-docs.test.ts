/**
 * The versioned control documents of the MongoDB store (shared/adapters/mongodb-control-docs.ts) against a writer
 * paused between its read and its insert: the two-process race (control-race.test.ts) rarely pauses one that long.
 * A MongoDB leg. Each case holds one writer's insert while another writer goes on, then lets it land.
 */
import { expect } from 'chai';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { controlDocs } from '../../shared/adapters/mongodb-control-docs.ts';
import type { ControlDoc } from '../../shared/ports/read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { gate, within, type Gate } from '../support/controlled-read-store.ts';

describeMongo('MongoDB control documents: a writer paused before its insert', 'the paused-writer cases of the versioned control documents', (leg) => {
  let client: MongoClient;
  let collection: Collection<ControlDoc>;
  beforeEach(async () => {
    client = await MongoClient.connect(leg.url);
    collection = client.db(leg.database('versions')).collection<ControlDoc>('checkpoints');
  });
  afterEach(() => client.close());

  /** The collection as a writer whose next insert waits until the gate opens. */
  function heldOnInsert(paused: ReturnType<typeof gate>): Collection<ControlDoc> {
    return new Proxy(collection, {
      get: (target, key) => (key === 'insertOne'
        ? async (...args: Parameters<Collection<ControlDoc>['insertOne']>) => { await paused.pass(); return target.insertOne(...args); }
        : Reflect.get(target, key)),
    });
  }

  it('a writer that read a state three writes old fills a pruned version: refused, and readers keep the latest state', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'lease:w', token: 1 }, {}, true);
    const paused = gate();
    const stale = (await controlDocs(heldOnInsert(paused))).set({ _id: 'lease:w', token: 9 }, { token: 1 }, false);
    await paused.reached;
    for (const token of [2, 3, 4]) expect(await other.set({ _id: 'lease:w', token }, { token: token - 1 }, false)).to.equal(true);
    paused.open();
    expect(await stale, 'the stale compare-and-set').to.equal(false);
    expect(await other.readAll()).to.deep.equal([{ _id: 'lease:w', token: 4 }]);
    expect(await collection.countDocuments({}), 'versions kept').to.equal(2);
  });

  it('a writer that read a document before it was removed does not bring it back', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'checkpoint:w@2', token: 1 }, {}, true);
    const paused = gate();
    const stale = (await controlDocs(heldOnInsert(paused))).set({ _id: 'checkpoint:w@2', token: 1, position: 5 }, { token: 1 }, false);
    await paused.reached;
    await other.remove('checkpoint:w@2');
    paused.open();
    expect(await stale, 'the late compare-and-set').to.equal(false);
    expect(await other.readAll()).to.deep.equal([]);
    expect(await collection.countDocuments({})).to.equal(0);
  });

  it('a writer whose version another already built on has its write stand', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'generations', version: 1 }, {}, true);
    const paused = gate();
    // Held after its insert, before its check: the other writer builds on its version meanwhile.
    const checkedLate = new Proxy(collection, {
      get: (target, key) => (key === 'find'
        ? (...args: Parameters<Collection<ControlDoc>['find']>) => {
          const filter = args[0] as { _rev?: { $gte?: number } };
          if (filter._rev?.$gte === undefined) return target.find(...args);
          const cursor = target.find(...args);
          return { toArray: async () => { await paused.pass(); return cursor.toArray(); } };
        }
        : Reflect.get(target, key)),
    });
    const writer = (await controlDocs(checkedLate)).set({ _id: 'generations', version: 2 }, { version: 1 }, false);
    await paused.reached;
    expect(await other.set({ _id: 'generations', version: 3 }, { version: 2 }, false), 'built on the paused writer\'s version').to.equal(true);
    paused.open();
    expect(await writer).to.equal(true);
    expect(await other.readAll()).to.deep.equal([{ _id: 'generations', version: 3 }]);
  });

  it('a writer whose predecessor would be pruned by one building on its version, before that one\'s insert lands, has its write stand', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'generations', version: 1 }, {}, true);
    const checking = gate();
    // Held after its insert (version 2), before its check.
    const checkedLate = new Proxy(collection, {
      get: (target, key) => (key === 'find'
        ? (...args: Parameters<Collection<ControlDoc>['find']>) => {
          const filter = args[0] as { _rev?: { $gte?: number } };
          const cursor = target.find(...args);
          if (filter._rev?.$gte === undefined) return cursor;
          return { toArray: async () => { await checking.pass(); return cursor.toArray(); } };
        }
        : Reflect.get(target, key)),
    });
    const first = (await controlDocs(checkedLate)).set({ _id: 'generations', version: 2 }, { version: 1 }, false);
    await checking.reached;
    // The next writer builds on version 2; its insert (version 3) is held, and whatever it prunes meanwhile is done.
    const inserting = gate();
    let pruning: Promise<unknown> | undefined;
    const insertHeld = new Proxy(collection, {
      get: (target, key) => {
        if (key === 'insertOne') return async (...args: Parameters<Collection<ControlDoc>['insertOne']>) => { await inserting.pass(); return target.insertOne(...args); };
        if (key === 'deleteMany') return (...args: Parameters<Collection<ControlDoc>['deleteMany']>) => (pruning = target.deleteMany(...args));
        return Reflect.get(target, key);
      },
    });
    const second = (await controlDocs(insertHeld)).set({ _id: 'generations', version: 3 }, { version: 2 }, false);
    await inserting.reached;
    await pruning;
    checking.open();
    expect(await first, 'the first writer, whose version the second built on').to.equal(true);
    inserting.open();
    expect(await second).to.equal(true);
    expect(await other.readAll()).to.deep.equal([{ _id: 'generations', version: 3 }]);
  });

  /** The collection, counting the reads of a key's latest version (the one query that sorts). */
  function countingLatestReads(): { collection: Collection<ControlDoc>; reads: { count: number } } {
    const reads = { count: 0 };
    const counted = new Proxy(collection, {
      get: (target, key) => (key === 'find'
        ? (...args: Parameters<Collection<ControlDoc>['find']>) => {
          const cursor = target.find(...args);
          return new Proxy(cursor, {
            get: (c, k) => (k === 'sort' ? (...sortArgs: Parameters<typeof cursor.sort>) => { reads.count += 1; return c.sort(...sortArgs); } : Reflect.get(c, k)),
          });
        }
        : Reflect.get(target, key)),
    });
    return { collection: counted, reads };
  }

  it('a writer starts from the version it wrote last: its next writes read no latest version first', async () => {
    const { collection: counted, reads } = countingLatestReads();
    const owner = await controlDocs(counted);
    expect(await owner.set({ _id: 'checkpoint:w@1', token: 1, position: 0 }, { token: { $exists: false } }, true)).to.equal(true);
    const first = reads.count;
    for (const position of [1, 2, 3]) expect(await owner.set({ _id: 'checkpoint:w@1', token: 1, position }, { token: 1 }, false)).to.equal(true);
    expect(reads.count - first, 'latest versions read by the three writes after the first').to.equal(0);
    expect(await owner.readAll()).to.deep.equal([{ _id: 'checkpoint:w@1', token: 1, position: 3 }]);
  });

  it('a writer whose remembered version another replaced writes on the latest where its condition holds there, and is refused where it does not', async () => {
    const owner = await controlDocs(collection);
    const other = await controlDocs(collection);
    await owner.set({ _id: 'checkpoint:w@1', token: 1, position: 0 }, {}, true);
    expect(await other.set({ _id: 'checkpoint:w@1', token: 1, position: 4 }, { token: 1 }, false)).to.equal(true);
    expect(await owner.set({ _id: 'checkpoint:w@1', token: 1, position: 5 }, { token: 1 }, false), 'holds on the latest too').to.equal(true);
    expect(await other.readAll()).to.deep.equal([{ _id: 'checkpoint:w@1', token: 1, position: 5 }]);
    expect(await other.set({ _id: 'checkpoint:w@1', token: 2, position: 5 }, { token: 1 }, false), 'a new owner fences it').to.equal(true);
    expect(await owner.set({ _id: 'checkpoint:w@1', token: 1, position: 6 }, { token: 1 }, false), 'holds only on what it remembers').to.equal(false);
    expect(await other.readAll()).to.deep.equal([{ _id: 'checkpoint:w@1', token: 2, position: 5 }]);
    expect(await other.set({ _id: 'checkpoint:w@1', token: 3, position: 5 }, { token: 2 }, false)).to.equal(true);
    expect(await owner.set({ _id: 'checkpoint:w@1', token: 3, position: 7 }, { token: 3 }, false), 'holds only on the latest').to.equal(true);
    expect(await other.readAll()).to.deep.equal([{ _id: 'checkpoint:w@1', token: 3, position: 7 }]);
  });

  it('a writer whose remembered version is three writes old fills a pruned version: taken back, and judged again on the latest', async () => {
    const owner = await controlDocs(collection);
    const other = await controlDocs(collection);
    await owner.set({ _id: 'lease:w', token: 1, note: 'mine' }, {}, true);
    for (const note of ['a', 'b', 'c']) expect(await other.set({ _id: 'lease:w', token: 1, note }, { token: 1 }, false)).to.equal(true);
    // Version 2 was pruned: the owner's insert of it lands, is found below newer versions, and is taken back.
    expect(await owner.set({ _id: 'lease:w', token: 1, note: 'again' }, { token: 1 }, false)).to.equal(true);
    expect(await other.readAll()).to.deep.equal([{ _id: 'lease:w', token: 1, note: 'again' }]);
    expect((await collection.find({}).toArray()).map(({ _id }) => _id).sort(), 'versions kept').to.deep.equal(['lease:w#4', 'lease:w#5']);

    for (const token of [2, 3, 4]) expect(await other.set({ _id: 'lease:w', token }, { token: token - 1 }, false)).to.equal(true);
    expect(await owner.set({ _id: 'lease:w', token: 1, note: 'stale' }, { token: 1 }, false), 'on a state it no longer holds').to.equal(false);
    expect(await other.readAll()).to.deep.equal([{ _id: 'lease:w', token: 4 }]);
    expect(await collection.countDocuments({ _id: 'lease:w#6' }), 'the filled version taken back').to.equal(0);
  });

  it('a control document written before versions is read as it is, changed by compare-and-set, and goes two versions later', async () => {
    await collection.insertOne({ _id: 'generations', version: 7, live: { watches: 3 } });
    const docs = await controlDocs(collection);
    expect(await docs.read('generations')).to.deep.equal({ _id: 'generations', version: 7, live: { watches: 3 } });
    expect(await docs.set({ _id: 'generations', version: 8, live: { watches: 4 } }, { version: 6 }, false), 'on a state it does not hold').to.equal(false);
    const racing = await Promise.all([8, 8].map((version) => docs.set({ _id: 'generations', version, live: { watches: 4 } }, { version: 7 }, false)));
    expect(racing.filter(Boolean), 'two writers racing from it').to.have.length(1);
    expect((await collection.find({}).toArray()).map(({ _id }) => _id).sort(), 'kept while only one version follows it').to.deep.equal(['generations', 'generations#1']);
    expect(await docs.set({ _id: 'generations', version: 9, live: { watches: 4 } }, { version: 8 }, false)).to.equal(true);
    expect(await docs.readAll()).to.deep.equal([{ _id: 'generations', version: 9, live: { watches: 4 } }]);
    expect((await collection.find({}).toArray()).map(({ _id }) => _id).sort()).to.deep.equal(['generations#1', 'generations#2']);
  });

  /** The collection as a writer whose inserts, checks (the one query by `_rev`) and prunes wait on the gates given. */
  function held(gates: { insert?: Gate; check?: Gate; prune?: Gate }): Collection<ControlDoc> {
    return new Proxy(collection, {
      get: (target, key) => {
        if (key === 'insertOne' && gates.insert) {
          const { insert } = gates;
          return async (...args: Parameters<Collection<ControlDoc>['insertOne']>) => { await insert.pass(); return target.insertOne(...args); };
        }
        if (key === 'deleteMany' && gates.prune) {
          const { prune } = gates;
          return async (...args: Parameters<Collection<ControlDoc>['deleteMany']>) => { await prune.pass(); return target.deleteMany(...args); };
        }
        if (key === 'find' && gates.check) {
          const { check } = gates;
          return (...args: Parameters<Collection<ControlDoc>['find']>) => {
            const cursor = target.find(...args);
            if ((args[0] as { _rev?: unknown })._rev === undefined) return cursor;
            return { toArray: async () => { await check.pass(); return cursor.toArray(); } };
          };
        }
        return Reflect.get(target, key);
      },
    });
  }

  it('a writer tells `onWritten` once its version is inserted, before its check that it stands ends: readers see the highest version already', async () => {
    await (await controlDocs(collection)).set({ _id: 'checkpoint:w@1', token: 1, position: 0 }, {}, true);
    const check = gate();
    let told = false;
    const writing = (await controlDocs(held({ check }))).set({ _id: 'checkpoint:w@1', token: 1, position: 5 }, { token: 1 }, false, () => { told = true; });
    await within(check.reached, 5_000, 'the check after the insert');
    expect(told, 'told while the check is held').to.equal(true);
    expect((await (await controlDocs(collection)).readAll()).map((doc) => doc['position']), 'what a reader reads then').to.deep.equal([5]);
    check.open();
    expect(await writing).to.equal(true);
  });

  it('a writer starts from the version it read last, and reads the latest once for a key it found absent', async () => {
    const { collection: counted, reads } = countingLatestReads();
    await (await controlDocs(collection)).set({ _id: 'checkpoint:w@1', token: 1, position: 0 }, {}, true);
    const owner = await controlDocs(counted);
    expect(await owner.read('checkpoint:w@1')).to.deep.equal({ _id: 'checkpoint:w@1', token: 1, position: 0 });
    const afterRead = reads.count;
    expect(await owner.set({ _id: 'checkpoint:w@1', token: 1, position: 1 }, { token: 1 }, false)).to.equal(true);
    expect(reads.count - afterRead, 'latest versions read by a write after a read').to.equal(0);
    expect(await owner.read('checkpoint:w@2')).to.equal(null);
    const afterAbsent = reads.count;
    expect(await owner.set({ _id: 'checkpoint:w@2', token: 1, position: 0 }, { token: 1 }, false), 'nothing stored to match').to.equal(false);
    expect(reads.count - afterAbsent, 'latest versions read by a refused write on a key read absent').to.equal(1);
  });

  it('a writer that read a document before it was removed and written again from scratch does not write on the new one', async () => {
    const other = await controlDocs(collection);
    for (const token of [1, 2]) await other.set({ _id: 'checkpoint:w@3', token }, {}, true);
    const paused = gate();
    const stale = (await controlDocs(held({ insert: paused }))).set({ _id: 'checkpoint:w@3', token: 2, position: 9 }, { token: 2 }, false);
    await paused.reached;
    await other.remove('checkpoint:w@3');
    // Two versions again, under the numbers the removed ones had: the stale writer's insert (version 3) lands on them.
    for (const token of [7, 8]) await other.set({ _id: 'checkpoint:w@3', token }, {}, true);
    paused.open();
    expect(await stale, 'the compare-and-set on the removed document').to.equal(false);
    expect(await other.readAll()).to.deep.equal([{ _id: 'checkpoint:w@3', token: 8 }]);
  });

  it('a writer whose version lands below a later one built on another, its predecessor still there, is refused', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'checkpoint:w@5', token: 1 }, {}, true);
    // R reads version 1 of a history then removed; its version 2 lands on the new history, and is taken back.
    const rInsert = gate();
    const rCheck = gate();
    const r = (await controlDocs(held({ insert: rInsert, check: rCheck }))).set({ _id: 'checkpoint:w@5', token: 2 }, { token: 1 }, false);
    await rInsert.reached;
    await other.remove('checkpoint:w@5');
    await other.set({ _id: 'checkpoint:w@5', token: 5 }, {}, true);
    // W reads the new version 1; its insert of version 2 waits.
    const wInsert = gate();
    const w = (await controlDocs(held({ insert: wInsert }))).set({ _id: 'checkpoint:w@5', token: 5, note: 'W' }, { token: 5 }, false);
    await wInsert.reached;
    rInsert.open();
    await rCheck.reached;
    // Q reads R's version 2 while it is the latest, and builds version 3 on it once R has taken it back.
    const qInsert = gate();
    const qCheck = gate();
    const qPrune = gate();
    const q = (await controlDocs(held({ insert: qInsert, check: qCheck, prune: qPrune }))).set({ _id: 'checkpoint:w@5', token: 3 }, { token: 2 }, false);
    await qInsert.reached;
    rCheck.open();
    expect(await r, 'R, whose condition held only on the removed version').to.equal(false);
    qInsert.open();
    await Promise.all([qCheck.reached, qPrune.reached]);
    // S builds version 4 on Q's, so Q's stands; S's prune waits, so W's predecessor (the new version 1) is still there.
    const sPrune = gate();
    const s = (await controlDocs(held({ prune: sPrune }))).set({ _id: 'checkpoint:w@5', token: 4 }, { token: 3 }, false);
    await sPrune.reached;
    wInsert.open();
    expect(await w, 'W, whose version 2 lies below versions 3 and 4 not built on it').to.equal(false);
    for (const opened of [qCheck, qPrune, sPrune]) opened.open();
    expect(await Promise.all([q, s])).to.deep.equal([true, true]);
    expect(await other.readAll()).to.deep.equal([{ _id: 'checkpoint:w@5', token: 4 }]);
  });

  it('readers see the latest state while a version filled below it waits to be taken back', async () => {
    const other = await controlDocs(collection);
    await other.set({ _id: 'lease:r', token: 1 }, {}, true);
    const inserting = gate();
    const checking = gate();
    const stale = (await controlDocs(held({ insert: inserting, check: checking }))).set({ _id: 'lease:r', token: 9 }, { token: 1 }, false);
    await inserting.reached;
    for (const token of [2, 3, 4]) expect(await other.set({ _id: 'lease:r', token }, { token: token - 1 }, false)).to.equal(true);
    inserting.open();
    await checking.reached;
    expect(await collection.countDocuments({ _id: 'lease:r#2' }), 'the filled version, stored').to.equal(1);
    expect(await other.readAll()).to.deep.equal([{ _id: 'lease:r', token: 4 }]);
    checking.open();
    expect(await stale).to.equal(false);
  });

  it('a write whose insert the server refuses for another reason than a version taken fails with that error, and writes nothing', async () => {
    // The server's own refusal of a malformed command stands for any other: not a lost race, so not tried again (a
    // refusal that lasts would be tried for ever).
    const refusing = new Proxy(collection, {
      get: (target, key) => (key === 'insertOne' ? () => target.aggregate([{ $noSuchStage: {} }]).toArray() : Reflect.get(target, key)),
    });
    const writing = (await controlDocs(refusing)).set({ _id: 'lease:e', token: 1 }, {}, true);
    const refused = await within(writing, 5000, 'the refused write').then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(MongoServerError);
    expect((refused as MongoServerError).code).to.not.equal(11000);
    expect(await (await controlDocs(collection)).readAll()).to.deep.equal([]);
  });

  it('reads some: the latest version of each key named that has one, a document written before versions included, and no other key', async () => {
    await collection.insertOne({ _id: 'generations', version: 7 });
    const docs = await controlDocs(collection);
    await docs.set({ _id: 'checkpoint:w@1', token: 1, position: 3 }, {}, true);
    expect(await docs.set({ _id: 'checkpoint:w@1', token: 1, position: 5 }, { position: 3 }, false)).to.equal(true);
    await docs.set({ _id: 'lease:w', token: 1 }, {}, true);
    const some = await docs.readSome(['generations', 'checkpoint:w@1', 'checkpoint:w@2']);
    expect([...some].sort(([a], [b]) => a.localeCompare(b))).to.deep.equal([
      ['checkpoint:w@1', { _id: 'checkpoint:w@1', token: 1, position: 5 }],
      ['generations', { _id: 'generations', version: 7 }],
    ]);
  });

  it('removing a control document another process removed first does nothing', async () => {
    const docs = await controlDocs(collection);
    await docs.set({ _id: 'checkpoint:w@4', token: 1 }, {}, true);
    await (await controlDocs(collection)).remove('checkpoint:w@4');
    await docs.remove('checkpoint:w@4');
    expect(await docs.readAll()).to.deep.equal([]);
  });
});
