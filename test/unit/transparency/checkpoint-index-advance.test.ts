/**
 * The serial index as the log's signer advances it (read-api/transparency/checkpoint-index.ts) through the changes
 * kept in `tlog` beside the tiles (SerialIndexChangeDoc, `_id` `index:<position in 16 digits>`, shared/read-model/
 * documents/documents.ts): the index of a tree whose last leaf is at position P is the index after exactly the
 * changes of the events up to P, however many there are (more than one read's worth), whatever order an unsorted read
 * would give, and none of those after P. Within a budget of VRF work it stops just before the first serial whose VRF
 * output is not kept yet, and the next call goes on from there (reads of the store, however slow, are not counted
 * against the budget); it lets other work through meanwhile. A few leaves
 * to go (16 at most), it reads their changes by id, at the positions the tiles give, not as a range (FerretDB decodes
 * the whole collection for a range), and reaches the same index. It only goes forward, as the signed log does.
 *
 * Every event here is a leaf (leaf N at position N). The expected roots are those of a SerialIndex given the same
 * changes in log order by the rule of the `serials` read model (a status change of a serial never registered
 * changes nothing). Serials' VRF outputs are mostly kept beforehand (a stand-in key each), so that ten thousand
 * changes are read in a second rather than computed in half a minute (bench/README.md: milliseconds a serial); the
 * index is then judged by its root, an answer's key being the VRF's own.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { setImmediate } from 'node:timers';
import { expect } from 'chai';
import { CheckpointIndex, indexVrfKey } from '../../../read-api/transparency/checkpoint-index.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ReadView } from '../../../shared/ports/read-store.ts';
import type { SerialIndexChangeDoc } from '../../../shared/read-model/documents/documents.ts';
import { SerialIndex, type IndexedStatus, type SerialVrf, type VrfMemo } from '../../../shared/read-model/transparency/serial-index.ts';
import { edgeId, indexChangeId } from '../../../shared/read-model/transparency/tile-docs.ts';
import { vrfKey } from '../../../shared/read-model/transparency/vrf.ts';

const vrf = vrfKey(createHash('sha256').update('checkpoint-index-advance test VRF key').digest());

const change = (position: number, serial: string, status: IndexedStatus, registered: boolean): SerialIndexChangeDoc =>
  ({ _id: indexChangeId(position), serial, index_status: status, registered, position });
const registration = (position: number, serial: string) => change(position, serial, 'AUTHENTIC', true);
const theft = (position: number, serial: string) => change(position, serial, 'STOLEN', false);

/** A memo holding a stand-in key for each of `serials` (as the VRF file kept from an earlier start would). */
function keptFor(serials: Iterable<string>): Map<string, SerialVrf> {
  return new Map([...serials].map((serial) => [serial, { key: createHash('sha256').update(serial).digest() }]));
}
const memoOf = (kept: Map<string, SerialVrf>): VrfMemo =>
  ({ get: (serial) => kept.get(serial), remember: (serial, evaluation) => { kept.set(serial, evaluation); } });

/** The root of the index after the changes up to `through`, built here: a serial enters by its registration. */
function expectedRoot(changes: readonly SerialIndexChangeDoc[], kept: Map<string, SerialVrf>, through: number): string {
  const index = new SerialIndex(vrf, memoOf(new Map(kept)));
  const registered = new Set<string>();
  for (const { serial, index_status: status, registered: registers, position } of [...changes].sort((a, b) => a.position - b.position)) {
    if (position > through) break;
    if (registers) registered.add(serial);
    if (registered.has(serial)) index.set(serial, status);
  }
  return index.root().toString('base64');
}

/** A `tlog` holding `changes` (written in the order given) and the level-0 edge a log of `leaves` leaves has. */
async function tlogOf(changes: readonly SerialIndexChangeDoc[], leaves: number) {
  const store = createMemoryReadStore();
  // The edge's `_id` sorts before the changes' (`edge:` < `index:`), as in the log's `tlog`.
  const edge = { _id: edgeId(0), level: 0, index: 0, width: leaves, hashes: '', position: leaves };
  await store.write('tlog', [{ put: edge }, ...changes.map((put) => ({ put }))]);
  return store;
}
/** Every event a leaf: the leaves up to a position are that many. */
const leavesThrough = (leaves: number) => async (position: number) => Math.max(0, Math.min(position, leaves));

/** `store`'s reads, counted. */
function counting(store: Pick<ReadView, 'find' | 'getMany'>, reads: { find: number; getMany: number }): Pick<ReadView, 'find' | 'getMany'> {
  return {
    find: (collection, filter, options) => {
      reads.find += 1;
      return store.find(collection, filter, options);
    },
    getMany: (collection, ids) => {
      reads.getMany += 1;
      return store.getMany(collection, ids);
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('serial index: advanced by the log\'s signer through the changes kept beside the tiles', function () {
  this.timeout(60_000);

  it('applies exactly the changes up to the tree\'s last leaf, more than one read\'s worth (10,000) of them, and none after it', async () => {
    // 10,000 registrations, then thefts of the first 50 of them (past the first read), an event of no serial as the
    // tree's last leaf, and changes after the tree that its index must not hold.
    const changes = [
      ...Array.from({ length: 10_000 }, (_, i) => registration(i + 1, `S-${i}`)),
      ...Array.from({ length: 50 }, (_, i) => theft(10_001 + i, `S-${i}`)),
    ];
    const last = 10_051;
    const after = [theft(last + 1, 'S-100'), registration(last + 2, 'S-AFTER')];
    const kept = keptFor([...changes, ...after].map(({ serial }) => serial));
    const store = await tlogOf([...changes, ...after], last + 2);
    const index = new CheckpointIndex(vrf, memoOf(new Map(kept)));

    expect(await index.advance(store, last, last, Infinity, leavesThrough(last + 2))).to.equal(last);
    expect(index.size).to.equal(last);
    expect(index.root().toString('base64'), 'the index after the first 10,051 events').to.equal(expectedRoot(changes, kept, last));
  });

  it('applies the changes in log order whatever order the store keeps them in, a status change of a serial never registered changing nothing', async () => {
    const changes = [registration(1, 'RG-1'), theft(2, 'RG-1'), theft(3, 'RG-NEVER'), registration(4, 'RG-2')];
    const kept = keptFor(changes.map(({ serial }) => serial));
    // Written last first: a read without a sort may give them so (MongoDB promises no order).
    const store = await tlogOf([...changes].reverse(), 4);
    const index = new CheckpointIndex(vrf, memoOf(new Map(kept)));

    expect(await index.advance(store, 4, 4, Infinity, leavesThrough(4))).to.equal(4);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, kept, 4));
  });

  it('stops just before the first serial whose VRF output is not kept once its budget is spent, and goes on from there at the next call', async () => {
    // Position 3 is an event of no serial; RG-C's output is not kept; RG-D's is.
    const changes = [registration(1, 'RG-A'), registration(2, 'RG-B'), registration(4, 'RG-C'), registration(5, 'RG-D'), theft(6, 'RG-A')];
    const kept = keptFor(['RG-A', 'RG-B', 'RG-D']);
    const store = await tlogOf(changes, 6);
    const index = new CheckpointIndex(vrf, memoOf(new Map(kept)));

    // No time for any VRF output: the kept ones are applied, up to the leaf before RG-C's.
    expect(await index.advance(store, 6, 6, 0, leavesThrough(6)), 'the tree reached').to.equal(3);
    expect(index.size).to.equal(3);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, kept, 3));

    expect(await index.advance(store, 6, 6, Infinity, leavesThrough(6))).to.equal(6);
    expect(index.size).to.equal(6);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, kept, 6));
  });

  it('spends its budget on VRF outputs, not on reading the store: a read slower than the budget still leaves it time to compute', async () => {
    const changes = Array.from({ length: 30 }, (_, i) => registration(i + 1, `RG-${i}`));
    const store = await tlogOf(changes, 30);
    // Each read takes 150 ms, three times the budget (FerretDB decoding a large collection, a loaded machine).
    const slow: Pick<ReadView, 'find' | 'getMany'> = {
      find: async (collection, filter, options) => { await new Promise((resolve) => setTimeout(resolve, 150)); return store.find(collection, filter, options); },
      getMany: (collection, ids) => store.getMany(collection, ids),
    };
    const index = new CheckpointIndex(vrf);
    const reached = await index.advance(slow, 30, 30, 50, leavesThrough(30));
    expect(reached, 'serials whose outputs were computed within 50 ms').to.be.greaterThan(0);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, new Map(), reached));
  });

  it('lets other work of the process through while it computes serials\' VRF outputs', async () => {
    // 40 outputs not kept: a hundred milliseconds or more of VRF work (bench/README.md), many times GIVE_WAY_MS.
    const changes = Array.from({ length: 40 }, (_, i) => registration(i + 1, `RG-${i}`));
    const store = await tlogOf(changes, 40);
    const index = new CheckpointIndex(vrf);
    let turns = 0;
    let done = false;
    const other = () => {
      if (done) return;
      turns += 1;
      setImmediate(other);
    };
    setImmediate(other);
    const reached = await index.advance(store, 40, 40, Infinity, leavesThrough(40));
    done = true;
    expect(reached).to.equal(40);
    expect(turns, 'turns of other work while the index advanced').to.be.greaterThan(0);
  });

  it('reads the changes of a few leaves to go by id, the positions the tiles give, and reaches the index a range read reaches', async () => {
    // Position 3 and 9 are events of no serial; RG-E's output is not kept.
    const changes = [registration(1, 'RG-A'), registration(2, 'RG-B'), theft(4, 'RG-A'), registration(5, 'RG-C'), registration(6, 'RG-D'),
      theft(7, 'RG-NEVER'), registration(8, 'RG-E'), theft(10, 'RG-D')];
    const kept = keptFor(['RG-A', 'RG-B', 'RG-C', 'RG-D', 'RG-NEVER']);
    const store = await tlogOf([...changes].reverse(), 10);
    const reads = { find: 0, getMany: 0 };
    const view = counting(store, reads);
    // Leaf N at position N: the leaves from one index to another are at the positions after the first.
    const leafPositions = async (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i + 1);
    const index = new CheckpointIndex(vrf, memoOf(new Map(kept)));

    expect(await index.advance(view, 2, 2, Infinity, leavesThrough(10), leafPositions)).to.equal(2);
    expect(index.root().toString('base64'), 'two leaves').to.equal(expectedRoot(changes, kept, 2));
    expect(await index.advance(view, 10, 10, 0, leavesThrough(10), leafPositions), 'no time for RG-E\'s output').to.equal(7);
    expect(index.root().toString('base64'), 'up to the leaf before RG-E\'s').to.equal(expectedRoot(changes, kept, 7));
    expect(await index.advance(view, 10, 10, Infinity, leavesThrough(10), leafPositions)).to.equal(10);
    expect(index.root().toString('base64'), 'ten leaves').to.equal(expectedRoot(changes, kept, 10));
    expect(reads, 'every change read by id').to.deep.equal({ find: 0, getMany: 3 });

    const many = Array.from({ length: 40 }, (_, i) => registration(i + 1, `RG-${i}`));
    const manyKept = keptFor(many.map(({ serial }) => serial));
    const manyStore = await tlogOf(many, 40);
    const manyReads = { find: 0, getMany: 0 };
    const fresh = new CheckpointIndex(vrf, memoOf(new Map(manyKept)));
    expect(await fresh.advance(counting(manyStore, manyReads), 40, 40, Infinity, leavesThrough(40), leafPositions)).to.equal(40);
    expect(fresh.root().toString('base64'), 'forty leaves').to.equal(expectedRoot(many, manyKept, 40));
    expect(manyReads, 'forty leaves to go: one range read').to.deep.equal({ find: 1, getMany: 0 });
  });

  it('only goes forward: the tree it stands at again changes nothing, a smaller one is refused', async () => {
    const changes = [registration(1, 'RG-1'), registration(2, 'RG-2'), theft(3, 'RG-1')];
    const kept = keptFor(changes.map(({ serial }) => serial));
    const store = await tlogOf(changes, 3);
    const index = new CheckpointIndex(vrf, memoOf(new Map(kept)));
    await index.advance(store, 3, 3, Infinity, leavesThrough(3));

    expect(await index.advance(store, 3, 3, Infinity, leavesThrough(3))).to.equal(3);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, kept, 3));
    expect(await rejection(index.advance(store, 2, 2, Infinity, leavesThrough(3)))).to.be.instanceOf(RangeError);
    expect(index.size).to.equal(3);
    expect(index.root().toString('base64')).to.equal(expectedRoot(changes, kept, 3));
  });

  it('takes its VRF key only from an Ed25519 private key', () => {
    const refused = 'the log key is not an Ed25519 private key';
    expect(() => indexVrfKey(generateKeyPairSync('ed25519').publicKey)).to.throw(refused);
    // A private key of another curve whose secret is 32 bytes too (JWK `d`): no VRF key of it.
    expect(() => indexVrfKey(generateKeyPairSync('x25519').privateKey)).to.throw(refused);
    expect(() => indexVrfKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)).to.throw(refused);
    expect(indexVrfKey(generateKeyPairSync('ed25519').privateKey).publicKey).to.have.length(32);
  });
});
