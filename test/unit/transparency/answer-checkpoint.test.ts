/**
 * The tree a signed answer pins (read-api/transparency/answer-checkpoint.ts, issue 40): one that holds no event after
 * the position the answer's data was read at. A log of 300 events with sparse positions (10, 20, ..., as
 * EventStoreDB's commit positions are sparse), built and signed as the service does: an answer read where the log
 * is ahead pins the tree of the events at positions up to its own, whose root is computed here by hand (RFC 9162,
 * 2.1.1) from the log's leaves, and whose size is counted here from the events' positions; an answer at or past the
 * last leaf pins the latest signed checkpoint; a parked log pins nothing.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { answerCheckpoint } from '../../../read-api/transparency/answer-checkpoint.ts';
import type { LogView, TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { ProjectionLease } from '../../../shared/read-model/projections/lease.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { logProjection, signedLogOf } from '../../support/signed-log.ts';

const EVENTS = 300;
/** Event i (from 1) is at position 10 i: positions are not leaf counts. */
const STEP = 10;
const sha = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 9162 2.1.1, MTH over leaf hashes: the left subtree holds the largest power of two below the size. */
function mth(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return Buffer.from(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** `store` with every position multiplied by STEP, as a store with sparse positions answers. */
function sparse(store: EventStore): EventStore {
  const view: Pick<EventStore, 'readAll' | 'headPosition'> = {
    readAll: async (options) => (await store.readAll({ ...options, after: Math.floor(options.after / STEP) }))
      .map((event) => ({ ...event, position: event.position * STEP })),
    headPosition: async () => (await store.headPosition()) * STEP,
  };
  return view as EventStore;
}

describe('the tree a signed answer pins, by the position its data was read at', function () {
  this.timeout(30_000);
  let events: EventStore;
  let log: TransparencyLog;
  let readStore: ReadStore;
  /** The log's leaf hashes, as its tiles hold them. */
  let leaves: Uint8Array[];

  before(async () => {
    events = openSqliteEventStore(':memory:');
    for (let i = 0; i < EVENTS; i += 1) await events.append(`serial-AC-${i}`, [serialRegistered(`AC-${String(i).padStart(4, '0')}`)], 'no_stream');
    const { privateKey } = generateKeyPairSync('ed25519');
    ({ log, readStore } = await signedLogOf(sparse(events), privateKey, 'watch.example/watchcat/events'));
    const { log: tiles } = await log.read();
    leaves = await Promise.all(Array.from({ length: EVENTS }, (_, index) => tiles.leafHash(index)));
  });
  after(async () => {
    await log.stop();
    await events.close();
  });

  it('signs a checkpoint of every event, whose root is the MTH of its leaves by hand', () => {
    const latest = log.checkpoint()!;
    expect(latest.size).to.equal(EVENTS);
    expect(Buffer.from(latest.root).toString('hex')).to.equal(mth(leaves).toString('hex'));
  });

  it('pins, where the log is ahead of the data, the tree of the events at positions up to the data\'s, whose root is that prefix\'s', async () => {
    const pin = answerCheckpoint(log);
    // Within the first tile, at a tile's last leaf and the next one, inside the edge tile, between two events.
    for (const position of [STEP, 7 * STEP, 256 * STEP, 257 * STEP, 280 * STEP + 5, 299 * STEP]) {
      const held = Math.floor(position / STEP);
      const pinned = await pin(position);
      expect(pinned?.size, `at position ${position}`).to.equal(held);
      expect(Buffer.from(pinned!.root).toString('hex'), `at position ${position}`).to.equal(mth(leaves.slice(0, held)).toString('hex'));
    }
  });

  it('pins the empty tree for data read before any event, and the latest checkpoint at or past its last leaf', async () => {
    const pin = answerCheckpoint(log);
    const empty = await pin(STEP - 1);
    expect(empty?.size).to.equal(0);
    expect(Buffer.from(empty!.root).toString('hex')).to.equal(sha().toString('hex'));
    for (const position of [EVENTS * STEP, EVENTS * STEP + 1, 10 ** 9]) expect(await pin(position), `at ${position}`).to.equal(log.checkpoint());
  });

  it('pins nothing once the log is parked, even for a position asked before', async () => {
    const pin = answerCheckpoint(log);
    expect((await pin(7 * STEP))?.size).to.equal(7);
    const other = (await ProjectionLease.acquire(readStore, logProjection, 'answer-checkpoint-test', { preempt: true }))!;
    await other.park(other.checkpoint.position, 'a rewritten history');
    await other.release();
    await log.look();
    expect(log.parked()).to.be.a('string');
    expect(await pin(7 * STEP)).to.equal(undefined);
    expect(await pin(EVENTS * STEP)).to.equal(undefined);
  });

  describe('from a snapshot that cannot stand behind the latest checkpoint', () => {
    let shortEvents: EventStore;
    let shortLog: TransparencyLog;
    /** The log with the latest checkpoint and parking of `log`, its snapshots given by `read`. */
    const logReading = (read: TransparencyLog['read']) => ({ checkpoint: () => log.checkpoint(), parked: () => undefined, read });

    before(async () => {
      // Another, shorter history: what a read store being filled again holds while it catches up.
      shortEvents = openSqliteEventStore(':memory:');
      for (let i = 0; i < 4; i += 1) await shortEvents.append(`serial-AS-${i}`, [serialRegistered(`AS-${i}`)], 'no_stream');
      ({ log: shortLog } = await signedLogOf(shortEvents, generateKeyPairSync('ed25519').privateKey, 'watch.example/watchcat/events'));
    });
    after(async () => {
      await shortLog.stop();
      await shortEvents.close();
    });

    it('pins nothing from tiles behind the checkpoint or a snapshot that finds the log parked, even after pinning from whole tiles', async () => {
      // The whole log as a running one serves it (the test above parked it since).
      const whole: LogView = { ...(await log.read()), parked: undefined };
      let view = whole;
      const pin = answerCheckpoint(logReading(async () => view));
      expect((await pin(7 * STEP))?.size, 'from whole tiles').to.equal(7);
      view = await shortLog.read();
      expect(view.log.size, 'the tiles being filled again').to.equal(4);
      expect(await pin(20 * STEP), 'tiles behind the checkpoint').to.equal(undefined);
      view = { ...whole, parked: 'a rewritten history' };
      expect(await pin(30 * STEP), 'a snapshot of the log parked since the last look').to.equal(undefined);
    });

    it('pins nothing from tiles behind the checkpoint when it has not yet read where its last leaf is', async () => {
      const behind = await shortLog.read();
      expect(await answerCheckpoint(logReading(async () => behind))(7 * STEP)).to.equal(undefined);
    });

    it('pins once the tiles have caught up, having pinned nothing while they were behind (nothing is kept of a read that found none)', async () => {
      const whole: LogView = { ...(await log.read()), parked: undefined };
      let view = await shortLog.read();
      const pin = answerCheckpoint(logReading(async () => view));
      expect(await pin(7 * STEP), 'the last leaf not read yet').to.equal(undefined);
      view = whole;
      expect((await pin(7 * STEP))?.size, 'the last leaf read from whole tiles').to.equal(7);
      view = await shortLog.read();
      expect(await pin(20 * STEP), 'a prefix from tiles behind').to.equal(undefined);
      view = whole;
      expect((await pin(20 * STEP))?.size, 'the same prefix from whole tiles').to.equal(20);
    });

    it('reads again after a read that failed, rather than keep the failure for that checkpoint', async () => {
      let down = true;
      const pin = answerCheckpoint(logReading(async () => {
        if (down) throw new Error('the read store is down');
        return { ...(await log.read()), parked: undefined };
      }));
      const failed = await pin(7 * STEP).then(() => undefined, (error: unknown) => error);
      expect(failed, 'while the store is down').to.be.instanceOf(Error);
      down = false;
      expect((await pin(7 * STEP))?.size, 'once it is back').to.equal(7);
    });
  });
});
