/**
 * The transparency log as a projection: its tiles give the roots, proofs and tiles of the RFC 9162 tree of the
 * entries (computed here independently by the in-memory tree over the same entries; Go's tlog checks the served ones
 * in test/pipeline/transparency-log.test.ts), whatever the batches, and a replay or a bulk cut short by a crash
 * changes nothing once replayed.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../../shared/adapters/mongodb-read-store.ts';
import { describeMongo } from '../../support/mongodb-leg.ts';
import { withStoredTexts, type StoredEvent, type UnreadableEvent } from '../../../shared/ports/event-store.ts';
import { FIRST_GENERATION, type ReadStore, type StoredDoc } from '../../../shared/ports/read-store.ts';
import { projectBatch } from '../../../shared/read-model/projections/batch.ts';
import type { PositionedRecord, Projection } from '../../../shared/read-model/projections/projection.ts';
import { transparencyLogProjection } from '../../../shared/read-model/projections/transparency-log.projection.ts';
import type { TileDoc } from '../../../shared/read-model/documents/documents.ts';
import { entryText } from '../../../shared/read-model/transparency/log-entry.ts';
import { SIGNED_CHECKPOINT_ID, type SignedCheckpointDoc } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { MemoryTree } from '../../../shared/read-model/transparency/memory-tree.ts';
import { edgeId } from '../../../shared/read-model/transparency/tile-docs.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import { expectedTile } from '../../support/tree-tiles.ts';

const projection = transparencyLogProjection as unknown as Projection;

/** `count` stored events at positions 3, 6, 9, ... (not contiguous, as EventStoreDB's), with their stored texts. */
function history(count: number): StoredEvent[] {
  return Array.from({ length: count }, (_, i) => withStoredTexts({
    type: 'SerialRegistered', id: `id-${i}`, stream: `serial-S${i}`, revision: 0, position: 3 * (i + 1),
    data: { serial: `S${i}` }, metadata: {},
  } as unknown as StoredEvent, `{"serial":"S${i}"}`, `{"n":${i}}`));
}

const entryOf = (event: StoredEvent, data: string, metadata: string) =>
  entryText({ stream: event.stream, revision: event.revision, id: event.id, type: event.type, data, metadata });

function treeOf(events: readonly StoredEvent[]): MemoryTree {
  const tree = new MemoryTree();
  events.forEach((event, i) => tree.append(entryOf(event, `{"serial":"S${i}"}`, `{"n":${i}}`)));
  return tree;
}

async function project(store: ReadStore, events: readonly StoredEvent[], batchSize: number): Promise<void> {
  for (let start = 0; start < events.length; start += batchSize) {
    const ops = await projectBatch(projection, events.slice(start, start + batchSize) as PositionedRecord[], store.generation('tlog', FIRST_GENERATION));
    if (ops.length > 0) await store.write('tlog', ops);
  }
}

const b64 = (hash: Uint8Array) => Buffer.from(hash).toString('base64');
const documents = async (store: ReadStore) => (await store.find<StoredDoc>('tlog', {}, { sort: { _id: 1 } })).map((doc) => structuredClone(doc));

// Past one full tile of level 1 (65,536 leaves), so that every path of the projection is taken.
const allEvents = history(65_536 + 300);
const tree = treeOf(allEvents);

/**
 * What the log's tiles answer for the first `count` events, on a read store made by `open` (each adapter's leg runs
 * it; FerretDB's SQLite handler scans a collection for each write, so its leg projects fewer events).
 */
function tilesSpec(open: () => Promise<ReadStore>, count: number): void {
  const events = allEvents.slice(0, count);
  const n = events.length;
  const within = <T extends readonly number[]>(cases: readonly T[]) => cases.filter((numbers) => numbers.every((x) => x <= n));
  let store: ReadStore;
  const opened: ReadStore[] = [];
  const fresh = async () => {
    const made = await open();
    opened.push(made);
    return made;
  };

  // Each test projects its own (under half a second in memory): code run in a `before` hook is credited by the
  // mutation tester's per-test coverage to whichever test ran before the hook, so a hook's projection would be
  // judged by a test of another file (test/README.md, issue 31).
  beforeEach(async () => {
    store = await fresh();
    await project(store, events, 2_000);
  });
  after(async () => {
    await Promise.all(opened.map((made) => made.close()));
  });

  it('holds the tree of every event: its roots, inclusion and consistency proofs are those of the entries', async () => {
    const log = await TileLog.read(store);
    expect(log.size).to.equal(n);
    for (const [size] of within([[1], [2], [3], [255], [256], [257], [511], [65_535], [65_536], [65_537], [n]])) {
      expect(b64(await log.root(size!)), `root of ${size}`).to.equal(b64(tree.root(size!)));
    }
    for (const [index, size] of within([[0, 1], [5, 300], [255, 256], [256, 65_536], [65_600, n], [n - 1, n]])) {
      const { leaf, proof, root } = await log.inclusion(index!, size!);
      expect(b64(leaf)).to.equal(b64(tree.get(0, index!)));
      expect(proof.map(b64), `inclusion of ${index} in ${size}`).to.deep.equal(tree.inclusion(index!, size!).map(b64));
      expect(b64(root)).to.equal(b64(tree.root(size!)));
    }
    for (const [first, second] of within([[1, 2], [3, 300], [256, 65_537], [1_000, n], [n, n]])) {
      expect((await log.consistency(first!, second!)).proof.map(b64), `consistency ${first} to ${second}`).to.deep.equal(tree.consistency(first!, second!).map(b64));
    }
  });

  it('serves the tiles tlog-tiles lays out, full and partial, and none the tree does not hold yet', async () => {
    const log = await TileLog.read(store);
    const last = { level: 0, index: Math.floor(n / 256), width: n % 256 };
    for (const tile of [{ level: 0, index: 0, width: 256 }, last, { level: 0, index: 255, width: 256 }, { level: 1, index: 0, width: 256 }, { level: 1, index: 1, width: 1 }, { level: 2, index: 0, width: 1 }]) {
      const expected = expectedTile(tree, n, tile);
      const actual = await log.tile(tile, n);
      expect(actual && b64(actual), JSON.stringify(tile)).to.equal(expected && b64(expected));
    }
    expect(await log.tile(last, n - 1)).to.equal(undefined);
  });

  it('finds the leaf of an event by its position', async () => {
    const log = await TileLog.read(store);
    expect(await log.indexOf(3)).to.equal(0);
    expect(await log.indexOf(3 * (n - 7))).to.equal(n - 8);
    expect(await log.indexOf(4)).to.equal(undefined);
  });

  it('gives the same documents whatever the batches', async () => {
    const other = await fresh();
    await project(other, events, 777);
    expect(await documents(other)).to.deep.equal(await documents(store));
  });
}

describe('transparency log projection: hash tiles in the read store', function () {
  this.timeout(120_000);

  describe('in memory', function () {
    tilesSpec(async () => createMemoryReadStore(), allEvents.length);
  });
  describeMongo('on MongoDB', 'the transparency log projection on MongoDB', (leg) => {
    tilesSpec(async () => createMongoReadStore(leg.url, leg.database('tlog')), 1_300);
  });

  it('changes nothing when a batch comes again, nor after a bulk cut short by a crash is replayed', async () => {
    const few = history(600);
    const whole = createMemoryReadStore();
    await project(whole, few, 600);
    const crashed = createMemoryReadStore();
    await project(crashed, few.slice(0, 250), 250);
    // The batch that fills tile 0/000 and 0/001, written up to each of its writes, then replayed whole.
    const ops = await projectBatch(projection, few.slice(250) as PositionedRecord[], crashed.generation('tlog', FIRST_GENERATION));
    for (let cut = 0; cut <= ops.length; cut += 1) {
      const store = createMemoryReadStore();
      await project(store, few.slice(0, 250), 250);
      if (cut > 0) await store.write('tlog', ops.slice(0, cut));
      await project(store, few.slice(250), 350);
      await project(store, few, 600);
      expect(await documents(store), `cut after ${cut} writes`).to.deep.equal(await documents(whole));
    }
  });

  it('changes nothing when the last event comes again while the filling tile holds 255 hashes (one short of full)', async () => {
    // A replay that reached the edge again would make it full: a bogus tile 0/000 and a bogus hash on level 1.
    const few = history(258);
    const whole = createMemoryReadStore();
    await project(whole, few, 258);
    const replayed = createMemoryReadStore();
    await project(replayed, few.slice(0, 255), 255);
    await project(replayed, few.slice(254, 255), 1);
    await project(replayed, few.slice(255), 3);
    expect(b64(await (await TileLog.read(replayed)).root(257))).to.equal(b64(tree.root(257)));
    expect(await documents(replayed)).to.deep.equal(await documents(whole));
  });

  it('makes a leaf of an event this version cannot read, from its stored texts', async () => {
    const unreadable: UnreadableEvent = { type: 'SerialTransferred', id: 'id-x', stream: 'serial-X', revision: 1, position: 2, metadata: null, unreadable: 'unknown event type' };
    const store = createMemoryReadStore();
    await project(store, [withStoredTexts(unreadable, '{"to":"someone"}', '{}')], 1);
    const expected = new MemoryTree();
    expected.append(entryText({ stream: 'serial-X', revision: 1, id: 'id-x', type: 'SerialTransferred', data: '{"to":"someone"}', metadata: '{}' }));
    expect(b64(await (await TileLog.read(store)).root(1))).to.equal(b64(expected.root(1)));
  });

  it('stops vouching for the serial index from an event of a type this version does not know in a serial\'s stream, not in another stream', async () => {
    // Between two registrations (positions 3 and 6): a newer writer's event, as stored.
    const levelZeroAfter = async (stream: string) => {
      const newer: UnreadableEvent = { type: 'SerialTransferred', id: 'id-n', stream, revision: 1, position: 4, metadata: null, unreadable: 'unknown event type' };
      const store = createMemoryReadStore();
      await project(store, [allEvents[0]!, withStoredTexts(newer, '{"to":"someone"}', '{}'), allEvents[1]!], 1);
      return store.get<TileDoc>('tlog', edgeId(0));
    };
    expect(await levelZeroAfter('serial-S0'), 'in the serial\'s stream').to.include({ width: 3, index_from_start: false });
    expect(await levelZeroAfter('serial-NEVER-REGISTERED'), 'in a serial\'s stream the index does not hold').to.include({ width: 3, index_from_start: false });
    expect(await levelZeroAfter('watch-RG-1'), 'in a watch\'s stream').to.include({ width: 3, index_from_start: true });
  });

  it('stores a serial index change for each event of a serial\'s status, and none for another event', async () => {
    const event = (type: string, stream: string, position: number, data: object) => withStoredTexts(
      { type, id: `id-${position}`, stream, revision: 0, position, data, metadata: {} } as unknown as StoredEvent, JSON.stringify(data), '{}');
    const store = createMemoryReadStore();
    await project(store, [
      event('SerialRegistered', 'serial-S1', 3, { serial: 'S1' }),
      event('WatchRevised', 'watch-RG-1', 4, { reference: 'RG-1', name: { en: 'A', fr: 'B' } }),
      event('SerialReportedStolen', 'serial-S1', 5, { serial: 'S1' }),
      event('CollectionDefined', 'collection-aurora', 6, { code: 'aurora' }),
      event('SerialRecovered', 'serial-S1', 7, { serial: 'S1' }),
    ], 2);
    const changes = (await documents(store)).filter((doc) => doc._id.startsWith('index:'));
    expect(changes.map(({ _id, ...change }) => change)).to.deep.equal([
      { serial: 'S1', index_status: 'AUTHENTIC', registered: true, position: 3 },
      { serial: 'S1', index_status: 'STOLEN', registered: false, position: 5 },
      { serial: 'S1', index_status: 'AUTHENTIC', registered: false, position: 7 },
    ]);
  });

  it('makes the leaf of an event whose texts the store keeps none of (EventStoreDB) from its data and metadata in JSON', async () => {
    const event = { type: 'SerialReportedStolen', id: 'id-7', stream: 'serial-S7', revision: 2, position: 9, data: { serial: 'S7' }, metadata: { actor: 'ops' } } as unknown as StoredEvent;
    const store = createMemoryReadStore();
    await project(store, [event], 1);
    const expected = new MemoryTree();
    expected.append('{"stream":"serial-S7","revision":2,"id":"id-7","type":"SerialReportedStolen","data":{"serial":"S7"},"metadata":{"actor":"ops"}}');
    expect(b64(await (await TileLog.read(store)).root(1))).to.equal(b64(expected.root(1)));
  });

  describe('before a rebuild switches readers to its tiles', () => {
    const signed = (size: number, root: Uint8Array): SignedCheckpointDoc => ({ _id: SIGNED_CHECKPOINT_ID, size, root: b64(root), note: '' });
    const checkAfter = async (count: number, checkpoint: SignedCheckpointDoc) => {
      const store = createMemoryReadStore();
      await project(store, allEvents.slice(0, count), 100);
      return projection.checkBeforeSwitch!(store.generation('tlog', FIRST_GENERATION), new Map([[checkpoint._id, checkpoint]]));
    };

    it('lets tiles go live that extend the checkpoint signed before', async () => {
      expect(await checkAfter(300, signed(257, tree.root(257)))).to.equal(undefined);
      expect(await checkAfter(257, signed(257, tree.root(257)))).to.equal(undefined);
    });

    it('stops tiles holding fewer events than were signed, or another root for the signed size', async () => {
      expect(await checkAfter(256, signed(257, tree.root(257)))).to.equal('the history holds 256 events, fewer than the 257 signed before');
      expect(await checkAfter(300, signed(257, tree.root(258)))).to.match(/^the first 257 events of the history give another root/);
    });
  });
});
