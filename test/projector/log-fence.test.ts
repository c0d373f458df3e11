/**
 * Issue 40, item 4 and issue 41, item 3: a rebuild never rewinds the transparency log, and the log never signs what
 * does not extend what it signed. Deterministic: a standing worker whose fake clock never tells it to renew is
 * preempted by a rebuild, an event is appended while the rebuild waits just before its check (defect 4 of issue 40);
 * a stale owner writes after a preemption; an operator resumes a log whose tree the signer refuses; the store is
 * filled again from a shorter history. On the in-memory store always, on MongoDB in its leg.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { projectBatch } from '../../shared/read-model/projections/batch.ts';
import { LeaseLostError, ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { checkpointFile } from '../../read-api/transparency/checkpoint-file.ts';
import { readLogView, startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { logProjection } from '../support/signed-log.ts';
import { until } from '../support/until.ts';
import { appendAll } from './support/history.ts';

const logger = pino({ level: 'silent' });
const ORIGIN = 'watch.example/watchcat/events';
const TTL = 10_000;
const KEY = generateKeyPairSync('ed25519').privateKey;

class FakeClock implements LeaseClock {
  now = 1_000_000;
  monotonic = (): number => this.now;
  wall = (): number => this.now;
}

const serials = (count: number, from = 0): NewEvent[] =>
  Array.from({ length: count }, (_, i) => serialRegistered(`LOG-${String(from + i).padStart(4, '0')}`));

/** The root of the first `size` events of `eventStore`, as a log projected from nothing else gives it. */
async function cleanRoot(eventStore: EventStore, size: number): Promise<string> {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh, projections: [logProjection] });
  return Buffer.from(await (await TileLog.read(await fresh.snapshot())).root(size)).toString('base64');
}

/** The log's projector confirms the head of `eventStore` again, as it does every second while idle. */
async function confirmAgain(eventStore: EventStore, readStore: ReadStore): Promise<void> {
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  await createProjector({ eventStore, readStore, queue, logger, projections: [logProjection] }).catchUp();
  await queue.close();
}

function logFenceSuite(name: string, openStore: () => Promise<ReadStore>): void {
  describe(`transparency log fenced to the end: ${name}`, function () {
    this.timeout(30_000);
    let eventStore: EventStore;
    let readStore: ReadStore;
    let clock: FakeClock;
    const projectors: Projector[] = [];
    const logs: TransparencyLog[] = [];

    const make = (events = eventStore) => {
      const projector = createProjector({
        eventStore: events, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger,
        projections: [logProjection], leaseTtlMs: TTL, clock, backoff: { firstMs: 1, maxMs: 5 }, pollIntervalMs: 60_000,
      });
      projectors.push(projector);
      return projector;
    };
    /** A publisher that looks only when told (`look()`), besides its first look at its start. */
    const publish = async () => {
      const log = await startTransparencyLog({ readStore, key: KEY, origin: ORIGIN, logger, intervalMs: 60_000 });
      logs.push(log);
      return log;
    };
    const logState = async () => (await readProjectionStates(readStore)).find((state) => state.name === logProjection.name)!;
    const tiles = async () => readStore.find<StoredDoc>('tlog', {}, { sort: { _id: 1 } });

    beforeEach(async () => {
      eventStore = openSqliteEventStore(':memory:');
      readStore = await openStore();
      clock = new FakeClock();
    });
    afterEach(async () => {
      await Promise.all(logs.splice(0).map((log) => log.stop()));
      await Promise.all(projectors.splice(0).map((projector) => projector.stop()));
      await readStore.close();
      await eventStore.close();
    });

    it('a rebuild while an event is appended just before its check: the preempted worker adds no leaf, nothing past the live checkpoint is signed, and the rebuild switches, the log running', async () => {
      const live = make();
      live.start();
      await live.waitFor(await appendAll(eventStore, serials(5)), 5_000);
      const log = await publish();
      expect(log.checkpoint()?.size).to.equal(5);
      const { generation: before } = await logState();

      const result = await rebuild({
        eventStore, readStore, projections: [logProjection], clock, leaseTtlMs: TTL,
        beforeSwitch: async () => {
          await appendAll(eventStore, serials(1, 5));
          // The worker hears the append and runs on its standing lease, which its clock has not told it to renew.
          await until('the preempted worker ran on the append', () => live.counters().leaseLost >= 1);
          await log.look();
        },
      });
      expect(result.generation).to.be.above(before);
      expect(log.checkpoint()?.size, 'signed while the rebuild waited').to.equal(5);
      expect(await logState()).to.deep.include({ generation: result.generation, status: 'running', parked: null });

      // The live worker applies the appended event to the new generation at its next signal, and it is signed then.
      const head = await appendAll(eventStore, serials(1, 6));
      await live.waitFor(head, 5_000);
      await log.look();
      expect(log.parked()).to.equal(undefined);
      expect(log.checkpoint()?.size).to.equal(7);
      expect(Buffer.from(log.checkpoint()!.root).toString('base64')).to.equal(await cleanRoot(eventStore, 7));
    });

    it('a worker preempted before it renews adds no tile: its bulk is refused by the newer token, the tiles left as they were', async () => {
      await make().catchUp();
      await appendAll(eventStore, serials(3));
      await make().catchUp();
      await appendAll(eventStore, serials(1, 3));
      const stale = (await ProjectionLease.acquire(readStore, logProjection, 'worker-a', { clock, ttlMs: TTL }))!;
      const target = readStore.generation(logProjection.collection, stale.generation);
      const ops = await projectBatch(logProjection, await eventStore.readAll({ after: stale.current.position, limit: 10 }), target);
      expect(ops, 'the leaf it would add').to.not.be.empty;
      const newer = await ProjectionLease.acquire(readStore, logProjection, 'rebuild', { clock, ttlMs: TTL, preempt: true });
      expect(newer?.token).to.be.above(stale.token);
      const before = await tiles();

      const refused = await stale.write(target, ops).then(() => undefined, (error: unknown) => error);
      expect(refused).to.be.instanceOf(LeaseLostError);
      expect(await tiles()).to.deep.equal(before);
      expect((await TileLog.read(await readStore.snapshot())).size).to.equal(3);
    });

    it('signs only the tree the live checkpoint covers: leaves its owner wrote but has not yet checkpointed wait for their checkpoint', async () => {
      await appendAll(eventStore, serials(5));
      await make().catchUp();
      const log = await publish();
      expect(log.checkpoint()?.size).to.equal(5);
      const head = await appendAll(eventStore, serials(2, 5));
      const owner = (await ProjectionLease.acquire(readStore, logProjection, 'worker-a', { clock, ttlMs: TTL }))!;
      const target = readStore.generation(logProjection.collection, owner.generation);
      await owner.write(target, await projectBatch(logProjection, await eventStore.readAll({ after: owner.current.position, limit: 10 }), target));
      expect((await TileLog.read(await readStore.snapshot())).size, 'leaves in the tiles').to.equal(7);

      await log.look();
      expect(log.checkpoint()?.size, 'before the checkpoint').to.equal(5);
      await owner.saveCheckpoint(head);
      await log.look();
      expect(log.checkpoint()?.size, 'once checkpointed').to.equal(7);
      expect(Buffer.from(log.checkpoint()!.root).toString('base64')).to.equal(await cleanRoot(eventStore, 7));
    });

    /** A checkpoint of `size` leaves signed by the log key over a root no history of this test gives. */
    const forgeSigned = async (size: number) => {
      const doc = signedCheckpointDoc(signNote(checkpointBody({ origin: ORIGIN, size, root: new Uint8Array(32).fill(7) }), ORIGIN, KEY));
      expect(await storeSignedCheckpoint(readStore, doc, signedCheckpointOf(await readStore.readControl()))).to.equal(true);
    };

    it('an operator\'s resume of the parked log is not undone by a signer that refuses its tree: the log runs, refused and counted', async () => {
      await appendAll(eventStore, serials(4));
      await make().catchUp();
      const log = await publish();
      await forgeSigned(9);
      const operator = (await ProjectionLease.acquire(readStore, logProjection, 'operator', { clock, ttlMs: TTL, preempt: true }))!;
      await operator.park(operator.current.position, 'parked by the test');
      await operator.release();

      expect(await resumeProjection(readStore, logProjection)).to.equal(true);
      // Its owner confirms the head again (an idle projector does every second): the word, seen happen, that the
      // history holds 4 events (read-api/transparency/seen-confirmations.ts).
      clock.now += 1_000;
      await make().catchUp();
      for (let look = 0; look < 3; look += 1) await log.look();
      expect((await logState()).status, 'after three looks of the signer').to.equal('running');
      expect(log.parked()).to.equal('the history holds 4 events, fewer than the 9 signed before');
      expect(log.refusals(), 'one tree refused, counted once').to.equal(1);
      expect(log.checkpoint()?.size).to.equal(9);
    });

    it('reads a store where the log never ran as a running log with no checkpoint and no leaf', async () => {
      const view = await readLogView(readStore);
      expect(view.parked).to.equal(undefined);
      expect(view.checkpoint).to.equal(undefined);
      expect(view.log.size).to.equal(0);
    });

    it('signs nothing while its projection is parked, and says why in the reason its parking gave', async () => {
      await appendAll(eventStore, serials(4));
      await make().catchUp();
      const log = await publish();
      expect(log.checkpoint()?.size).to.equal(4);
      await appendAll(eventStore, serials(2, 4));
      await make().catchUp();
      const operator = (await ProjectionLease.acquire(readStore, logProjection, 'operator', { clock, ttlMs: TTL, preempt: true }))!;
      expect(operator.current.position, 'the tree it covers').to.equal(6);
      await operator.park(operator.current.position, 'parked by the test');
      await operator.release();

      await log.look();
      expect(log.checkpoint()?.size, 'the checkpoint served').to.equal(4);
      expect(signedCheckpointOf(await readStore.readControl())?.size, 'the checkpoint stored').to.equal(4);
      expect(log.parked()).to.equal('parked by the test');
      expect((await log.read()).parked, 'what the routes serve from').to.equal('parked by the test');
      expect(log.refusals(), 'parked, not refused').to.equal(0);
    });

    it('a signed rollback is refused once the store is filled again from a shorter history, by a publisher started again: never signed, counted', async () => {
      const history = serials(6);
      await appendAll(eventStore, history);
      await make().catchUp();
      const first = await publish();
      expect(first.checkpoint()?.size).to.equal(6);

      // The history rolled back to its first four events, and the log's live generation emptied and projected again,
      // the publisher looking on while it is filled (short of its checkpoint, not yet at the head: nothing to sign).
      const shorter = openSqliteEventStore(':memory:');
      try {
        await appendAll(shorter, history.slice(0, 4));
        const lease = (await ProjectionLease.acquire(readStore, logProjection, 'refill', { clock, ttlMs: TTL, preempt: true }))!;
        const emptied = (await tiles()).map((doc) => ({ delete: { _id: doc._id, position: 0 }, expected: doc.position }));
        await lease.write(readStore.generation(logProjection.collection, lease.generation), emptied);
        await lease.saveCheckpoint(0);
        await lease.release();
        await first.look();
        expect(first.refusals(), 'short of its checkpoint while it catches up: nothing refused').to.equal(0);
        expect(first.parked()).to.equal(undefined);
        await make(shorter).catchUp();
        expect((await TileLog.read(await readStore.snapshot())).size).to.equal(4);
        await first.stop();

        const again = await publish();
        // The confirmation there at its start is no word it saw happen; its owner's next is (an idle projector
        // confirms every second): that the history holds 4 events.
        clock.now += 1_000;
        await make(shorter).catchUp();
        await again.look();
        expect(again.checkpoint()?.size, 'the checkpoint served').to.equal(6);
        expect(signedCheckpointOf(await readStore.readControl())?.size, 'the checkpoint stored').to.equal(6);
        expect(again.parked()).to.equal('the history holds 4 events, fewer than the 6 signed before');
        expect(again.refusals()).to.equal(1);
        expect((await again.read()).parked, 'what the routes serve from').to.equal(again.parked());
      } finally {
        await shorter.close();
      }
    });
  });
}

logFenceSuite('in memory', async () => createMemoryReadStore());

describe('transparency log of the embedded store: a signed rollback across a restart', function () {
  this.timeout(30_000);
  let dataDir: string;
  const stores: EventStore[] = [];
  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-logfence-')); });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A process's start: an empty in-memory store filled from `events`, its publisher keeping its file record. */
  async function start(events: readonly NewEvent[]) {
    const eventStore = openSqliteEventStore(':memory:');
    stores.push(eventStore);
    await appendAll(eventStore, events);
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore, readStore, projections: [logProjection] });
    const log = await startTransparencyLog({ readStore, record: checkpointFile(dataDir), key: KEY, origin: ORIGIN, logger, intervalMs: 60_000 });
    return { readStore, log, confirm: () => confirmAgain(eventStore, readStore) };
  }

  it('refuses, after a restart over a history rolled back, to sign less than the checkpoint its file kept: never signed, counted', async () => {
    const history = serials(6);
    const before = await start(history);
    expect(before.log.checkpoint()?.size).to.equal(6);
    await before.log.stop();

    const after = await start(history.slice(0, 4));
    try {
      // The confirmation there at its start is no word it saw happen (the store may be a copy put back); its
      // projector's next is: the history holds 4 events.
      await after.confirm();
      await after.log.look();
      expect(after.log.checkpoint()?.size, 'the checkpoint served').to.equal(6);
      expect(signedCheckpointOf(await after.readStore.readControl())?.size, 'the checkpoint stored').to.equal(6);
      expect(signedCheckpointDoc(checkpointFile(dataDir).load()!).size, 'the checkpoint kept').to.equal(6);
      expect(after.log.parked()).to.equal('the history holds 4 events, fewer than the 6 signed before');
      expect(after.log.refusals()).to.equal(1);
    } finally {
      await after.log.stop();
    }
  });
});

describe('transparency log of a store that outlives its publisher: what its file kept and what the store holds', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  const stores: EventStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A read store with the log of `events` projected (a store of its own each time), and its projector's `confirm`. */
  async function storeOf(events: readonly NewEvent[]) {
    const eventStore = openSqliteEventStore(':memory:');
    stores.push(eventStore);
    await appendAll(eventStore, events);
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore, readStore, projections: [logProjection] });
    return { readStore, confirm: () => confirmAgain(eventStore, readStore) };
  }
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchcat-logkept-'));
    dirs.push(dir);
    return dir;
  };
  const publishOver = (readStore: ReadStore, dir: string | undefined, log = logger) =>
    startTransparencyLog({ readStore, ...(dir === undefined ? {} : { record: checkpointFile(dir) }), key: KEY, origin: ORIGIN, logger: log, intervalMs: 60_000 });

  it('starts again over the store that holds the checkpoint its file kept: the same one served, nothing refused', async () => {
    const { readStore } = await storeOf(serials(4));
    const kept = dataDir();
    const first = await publishOver(readStore, kept);
    expect(first.checkpoint()?.size).to.equal(4);
    await first.stop();

    const again = await publishOver(readStore, kept);
    try {
      expect(again.checkpoint()?.note, 'the checkpoint served').to.equal(checkpointFile(kept).load());
      expect(again.parked()).to.equal(undefined);
      expect(again.refusals()).to.equal(0);
    } finally {
      await again.stop();
    }
  });

  it('puts back the checkpoint its file kept over an older one of a store restored from a backup with the history, and refuses the older tree once its projector confirms it, with an error logged', async () => {
    const history = serials(6);
    const kept = dataDir();
    const signer = await publishOver((await storeOf(history)).readStore, kept);
    expect(signer.checkpoint()?.size).to.equal(6);
    await signer.stop();
    // The backup, of the history as it was too: the first four events, their tree signed then (by a publisher with no file).
    const { readStore: restored, confirm } = await storeOf(history.slice(0, 4));
    const backup = await publishOver(restored, undefined);
    expect(backup.checkpoint()?.size).to.equal(4);
    await backup.stop();

    type Line = { level: number; msg: string; alert?: string; size?: number; signed?: number };
    const lines: Line[] = [];
    const again = await publishOver(restored, kept, pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Line); } }));
    try {
      // The backup's confirmation is no word seen happen: a read store put back alone holds one as old, over a
      // longer history (test/projector/log-restore-read-store.test.ts). Its projector's next, of the same head, is.
      expect(again.refusals(), 'before its projector confirms').to.equal(0);
      await confirm();
      await again.look();
      // docs/api.md, "Never signs over a rewritten past": an error is logged, `transparency log: refused to sign ...`.
      const errors = lines.filter((line) => line.level === 50);
      expect(errors.map((line) => line.msg.startsWith('transparency log: refused to sign')), 'one error logged').to.deep.equal([true]);
      expect(errors[0]!.msg).to.include('the history holds 4 events, fewer than the 6 signed before');
      // The fields a log search or an alert on the lines keys on: what was refused, against what was signed.
      expect({ alert: errors[0]!.alert, size: errors[0]!.size, signed: errors[0]!.signed }).to.deep.equal({ alert: 'transparency log refused', size: 4, signed: 6 });
      expect(signedCheckpointOf(await restored.readControl())?.size, 'the checkpoint stored').to.equal(6);
      expect(again.checkpoint()?.size, 'the checkpoint served').to.equal(6);
      expect(again.parked()).to.equal('the history holds 4 events, fewer than the 6 signed before');
      expect(again.refusals()).to.equal(1);
    } finally {
      await again.stop();
    }
  });
});

describeMongo('transparency log fenced to the end over MongoDB', 'the log fencing tests over MongoDB', (leg) => {
  logFenceSuite('MongoDB', () => createMongoReadStore(leg.url, leg.database('logfence')));
});
