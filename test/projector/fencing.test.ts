/**
 * The runner's guarantees under faults, deterministically: a worker paused past its lease writes nothing more
 * (paused after its read, or between its lease check and its write), a rebuild fences a live job that then cannot
 * write into the switched-away generation, and a store outage heals by itself without a restart. Pauses are gates
 * the test opens; lease time is a fake clock the test moves. On the in-memory store always, on MongoDB in its leg.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { FIRST_GENERATION, type GenerationStore, type ReadStore } from '../../shared/ports/read-store.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector } from '../../projector/projector.ts';
import { leaseId } from '../../shared/read-model/projections/control-docs.ts';
import { LeaseLostError, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { appendAll, snapshot } from './support/history.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { until } from '../support/until.ts';

const logger = pino({ level: 'silent' });
const TTL = 10_000;
const FAST_BACKOFF = { firstMs: 1, maxMs: 5 };

class FakeClock implements LeaseClock {
  now = 1_000_000;
  monotonic = (): number => this.now;
  wall = (): number => this.now;
}

/** A point where a worker stops until the test opens it; `reached` resolves when it got there. */
function gate() {
  let open!: () => void;
  let arrived!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  const reached = new Promise<void>((resolve) => { arrived = resolve; });
  return { reached, open, pass: async () => { arrived(); await opened; } };
}

type Gate = ReturnType<typeof gate>;

/**
 * `store`, with the first `getStored` (a batch's read) or the first `write` of a generation held at `at`; `writes`
 * counts the bulk writes that landed.
 */
function pausing(store: ReadStore, at: Gate, where: 'read' | 'write', writes: { count: number }): ReadStore {
  let paused = false;
  const hold = async () => {
    if (paused) return;
    paused = true;
    await at.pass();
  };
  return {
    ...store,
    generation: (collection, number): GenerationStore => {
      const real = store.generation(collection, number);
      return {
        ...real,
        getStored: async (ids) => {
          const docs = await real.getStored(ids);
          if (where === 'read') await hold();
          return docs;
        },
        write: async (ops, options) => {
          if (where === 'write') await hold();
          await real.write(ops, options);
          writes.count += 1;
        },
      };
    },
  };
}

/** `store` as a projector sees it when it cannot reach it: every call it makes fails while `outage.down`. */
function unreachableWhile(store: ReadStore, outage: { down: boolean }): ReadStore {
  const failing = <T>(work: () => Promise<T>): Promise<T> => (outage.down ? Promise.reject(new Error('read store unreachable')) : work());
  return {
    ...store,
    readControl: () => failing(() => store.readControl()),
    setControl: (doc, condition, insert) => failing(() => store.setControl(doc, condition, insert)),
    generation: (collection, number) => {
      const real = store.generation(collection, number);
      return { ...real, getStored: (ids) => failing(() => real.getStored(ids)), write: (ops, options) => failing(() => real.write(ops, options)) };
    },
  };
}

const serials = (count: number, from = 0) => Array.from({ length: count }, (_, i) => serialRegistered(`FEN-${String(from + i).padStart(4, '0')}`));
const stolen = (count: number) => Array.from({ length: count }, (_, i) => serialReportedStolen(`FEN-${String(i).padStart(4, '0')}`));

function fencingSuite(name: string, openStore: () => Promise<ReadStore>): void {
  describe(`projector fencing and healing: ${name}`, function () {
    this.timeout(30_000);
    let eventStore: EventStore;
    let readStore: ReadStore;
    let clock: FakeClock;
    const projectors: Projector[] = [];
    const make = (store: ReadStore, extra: { pollIntervalMs?: number; leaseTtlMs?: number } = {}) => {
      const projector = createProjector({
        eventStore, readStore: store, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger,
        projections: [serialsProjection], leaseTtlMs: TTL, clock, backoff: FAST_BACKOFF, ...extra,
      });
      projectors.push(projector);
      return projector;
    };

    /**
     * A new worker's catch-up that takes over a lease whose owner renews it no more: a process judges expiry by its
     * own watch (lease-watch.ts), so it first finds the lease held, then sees it unchanged for longer than a lease.
     */
    async function catchUpTakingOver(): Promise<void> {
      const taker = make(readStore);
      const run = taker.catchUp();
      await until('the new worker found the lease held', () => taker.counters().leaseHeld >= 1);
      clock.now += TTL + 1;
      await run;
    }

    /**
     * A worker paused at its first batch's read or write while its lease expires and a new owner catches up on the
     * thefts appended meanwhile; then it resumes and its run ends. `writes` counts its bulks that landed.
     */
    async function takenOverWhilePaused(where: 'read' | 'write') {
      await appendAll(eventStore, serials(6));
      const paused = gate();
      const writes = { count: 0 };
      const stale = make(pausing(readStore, paused, where, writes));
      const staleRun = stale.catchUp();
      await paused.reached;
      const head = await appendAll(eventStore, stolen(3));
      await catchUpTakingOver();
      paused.open();
      await staleRun;
      return { stale, writes, head };
    }

    async function cleanRebuild() {
      const fresh = createMemoryReadStore();
      await rebuild({ eventStore, readStore: fresh, projections: [serialsProjection] });
      return (await snapshot(fresh))['serials'];
    }

    beforeEach(async () => {
      eventStore = openSqliteEventStore(':memory:');
      readStore = await openStore();
      clock = new FakeClock();
    });
    afterEach(async () => {
      await Promise.all(projectors.splice(0).map((projector) => projector.stop()));
      await readStore.close();
      await eventStore.close();
    });

    it('a worker paused past its lease after reading (a busy event loop) finds out when it resumes and writes nothing', async () => {
      const { stale, writes, head } = await takenOverWhilePaused('read');
      expect(writes.count, 'bulk writes by the paused worker that landed').to.equal(0);
      expect(stale.counters().leaseLost).to.equal(1);
      expect((await readProjectionStates(readStore)).map((s) => s.position)).to.deep.equal([head]);
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    it('a worker paused between its lease check and its bulk write (SIGSTOP) cannot overwrite the newer owner\'s documents', async () => {
      // The new owner applies the registrations and the thefts; the paused one holds registrations only.
      const { stale, writes, head } = await takenOverWhilePaused('write');
      expect(writes.count, 'bulk writes by the paused worker that landed').to.equal(0);
      // Refused by the fence (issue 40, item 4) before any document of it lands.
      expect(stale.counters().leaseLost, 'its stale bulk was refused').to.equal(1);
      expect((await readProjectionStates(readStore)).map((s) => s.position)).to.deep.equal([head]);
      const docs = (await snapshot(readStore))['serials'] as unknown as { _id: string; status: string }[];
      expect(docs.filter((doc) => doc.status === 'stolen').map((doc) => doc._id)).to.deep.equal(['FEN-0000', 'FEN-0001', 'FEN-0002']);
      expect(docs).to.deep.equal(await cleanRebuild());
    });

    it('a rebuild fences a live job: the job cannot write into the generation switched away from, and nothing is lost', async () => {
      await appendAll(eventStore, serials(6));
      const paused = gate();
      const writes = { count: 0 };
      const live = make(pausing(readStore, paused, 'read', writes));
      const liveRun = live.catchUp();
      await paused.reached;
      const before = (await readProjectionStates(readStore))[0];
      const result = await rebuild({ eventStore, readStore, projections: [serialsProjection], clock, leaseTtlMs: TTL });
      expect(result.generation).to.be.above(before!.generation);
      const head = await appendAll(eventStore, [...stolen(2), ...serials(2, 100)]);
      paused.open();
      await liveRun;
      expect(writes.count, 'writes of the fenced job that landed').to.equal(0);
      expect(live.counters().leaseLost).to.equal(1);
      await make(readStore).catchUp();
      const [after] = await readProjectionStates(readStore);
      expect(after).to.include({ generation: result.generation, position: head });
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    it('a rebuild that lost its leases before the switch (paused past them while a worker moved on) does not switch readers back', async () => {
      await appendAll(eventStore, serials(4));
      await make(readStore).catchUp();
      let head = 0;
      const failure = await rebuild({
        eventStore, readStore, projections: [serialsProjection], clock, leaseTtlMs: TTL,
        beforeSwitch: async () => {
          head = await appendAll(eventStore, stolen(2));
          await catchUpTakingOver();
        },
      }).then(() => undefined, (error: unknown) => error);
      expect(failure).to.be.instanceOf(LeaseLostError);
      const [state] = await readProjectionStates(readStore);
      expect(state).to.include({ generation: FIRST_GENERATION, position: head });
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    /** A started projector reaching the store through a switch the test flips (no periodic signal). */
    const startedBehindOutage = () => {
      const outage = { down: false };
      const projector = make(unreachableWhile(readStore, outage), { pollIntervalMs: 60_000 });
      projector.start();
      return { outage, projector };
    };

    it('after a read-store outage the projection resumes by itself, in the same process, without being parked', async () => {
      const { outage, projector } = startedBehindOutage();
      await projector.waitFor(await appendAll(eventStore, serials(2)), 5_000);
      outage.down = true;
      const head = await appendAll(eventStore, stolen(2));
      await until('the projector retried 5 times', () => projector.counters().retries >= 5);
      outage.down = false;
      await projector.waitFor(head, 5_000);
      expect(projector.status()).to.deep.equal([{ name: 'serials', position: head, status: 'running', parked: null }]);
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    const stateOf = async (name: string) => (await readProjectionStates(readStore)).find((state) => state.name === name);
    const leaseDoc = async () => (await readStore.readControl()).find((doc) => doc._id === leaseId('serials'));

    /** A worker started on `store` that has projected two registrations and kept its lease standing, and its token. */
    async function standingWorker(store: ReadStore, extra: { leaseTtlMs?: number } = {}) {
      const projector = make(store, { pollIntervalMs: 60_000, ...extra });
      projector.start();
      await projector.waitFor(await appendAll(eventStore, serials(2)), 5_000);
      await until('the lease kept standing', async () => (await leaseDoc())?.['standing'] === true);
      return { projector, token: (await leaseDoc())!['token'] };
    }

    /** The read store as a worker sees it that can be frozen: its control writes (lease renewals among them) wait. */
    function freezable() {
      let thaw = (): void => undefined;
      let frozen: Promise<void> | undefined;
      const store: ReadStore = {
        ...readStore,
        setControl: async (...args) => {
          await frozen;
          return readStore.setControl(...args);
        },
      };
      return {
        store,
        freeze: () => { frozen = new Promise<void>((resolve) => { thaw = resolve; }); },
        thaw: () => { frozen = undefined; thaw(); },
      };
    }

    it('a worker keeps the lease it ran to the head and projects the next appends itself under the same token; another worker\'s job then ends at once, and takes over at its first signal a second after the lease is let go', async () => {
      const { projector: a, token } = await standingWorker(readStore);
      const b = make(readStore, { pollIntervalMs: 60_000 });
      b.start();
      await until('the second worker\'s job found the lease held', () => b.counters().leaseHeld >= 1);
      const held = b.counters().leaseHeld;
      await new Promise((resolve) => setTimeout(resolve, 50));
      // A job that waited would look again every few ms (FAST_BACKOFF).
      expect(b.counters().leaseHeld, 'the job ended instead of waiting').to.equal(held);

      const head = await appendAll(eventStore, stolen(2));
      await a.waitFor(head, 5_000);
      expect((await leaseDoc())!['token'], 'no new lease for the appends').to.equal(token);
      expect((await stateOf('serials'))?.position).to.equal(head);

      await a.stop();
      expect((await leaseDoc())!['expires_at'], 'released at the stop').to.equal(0);
      // The other worker looks at a standing lease it found again at most a second later (STANDING_RECHECK_MS).
      clock.now += 1_000;
      const after = await appendAll(eventStore, serials(1, 2));
      await until('the second worker took over', async () => (await stateOf('serials'))?.position === after);
      expect((await leaseDoc())!['token']).to.be.greaterThan(token as number);
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    it('a worker that found another\'s standing lease queues no job for the appends for a second, looks again, and takes the projection over once the lease has expired', async () => {
      const owner = freezable();
      const { projector: a, token } = await standingWorker(owner.store);
      const b = make(readStore, { pollIntervalMs: 60_000 });
      b.start();
      await until('the second worker\'s job found the lease held', () => b.counters().leaseHeld >= 1);
      const held = b.counters().leaseHeld;

      for (let i = 1; i <= 3; i += 1) await a.waitFor(await appendAll(eventStore, serials(1, 1 + i)), 5_000);
      // A job queued on an append runs a moment after it (the appends are heard by both workers at once).
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(b.counters().leaseHeld, 'jobs the second worker ran on the appends').to.equal(held);
      // A second later it looks again, finds the lease still standing, and again queues nothing meanwhile.
      clock.now += 1_000;
      await a.waitFor(await appendAll(eventStore, serials(1, 5)), 5_000);
      await until('the second worker looked again', () => b.counters().leaseHeld === held + 1);
      await a.waitFor(await appendAll(eventStore, serials(1, 6)), 5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(b.counters().leaseHeld, 'jobs after looking again').to.equal(held + 1);

      // The owner freezes past its lease: the second worker's next signal queues the job that takes it over.
      owner.freeze();
      clock.now += TTL + 1;
      const head = await appendAll(eventStore, stolen(1));
      await until('the second worker took the lease over', async () => (await leaseDoc())!['token'] !== token);
      await until('the second worker projected the append', async () => (await stateOf('serials'))?.position === head);
      owner.thaw();
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    it('a worker whose standing lease was taken while it was frozen drops it at its next renewal and writes nothing more', async () => {
      const ttl = 200;
      const owner = freezable();
      const { projector: a, token: frozenToken } = await standingWorker(owner.store, { leaseTtlMs: ttl });
      const b = make(readStore, { pollIntervalMs: 60_000, leaseTtlMs: ttl });
      b.start();
      await until('the other worker found the lease held', () => b.counters().leaseHeld >= 1);
      owner.freeze();
      // Frozen past its lease as the other worker watches it: its poll of the leases takes it.
      clock.now += ttl + 1;
      await until('the other worker took the lease', async () => (await leaseDoc())!['token'] !== frozenToken);
      owner.thaw();
      await until('the frozen worker found its lease lost', () => a.counters().leaseLost >= 1);
      const head = await appendAll(eventStore, stolen(2));
      await until('the new owner projected the appends', async () => (await stateOf('serials'))?.position === head);
      await new Promise((resolve) => setTimeout(resolve, ttl));
      expect(a.counters().leaseLost, 'found lost once, then dropped: not renewed again, nor run on the appends').to.equal(1);
      expect(a.counters().retries, 'the dropped worker ran nothing it failed at').to.equal(0);
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });

    // Issue 40 changed this rule: it was "within a second of the stored confirmation's time, on this worker's wall
    // clock", a time another worker may have written. Now it is this worker's own confirmation, on its own clock.
    it('a run that finds nothing new confirms the head again, except within 250 ms of this very worker confirming that same head', async () => {
      const head = await appendAll(eventStore, serials(3));
      const confirmedAt = async () => (await stateOf('serials'))?.confirmed?.at;
      const worker = make(readStore);
      await worker.catchUp();
      const first = await confirmedAt();
      expect(first, 'the catch-up confirmed the head').to.equal(new Date(clock.now).toISOString());
      clock.now += 249;
      await worker.catchUp();
      expect(await confirmedAt(), 'under 250 ms later: nothing stored').to.equal(first);
      clock.now += 1;
      await worker.catchUp();
      expect(await confirmedAt(), '250 ms later: confirmed again').to.equal(new Date(clock.now).toISOString());
      expect((await stateOf('serials'))?.confirmed?.head).to.equal(head);
      // Another worker cannot tell how old a confirmation it did not write is (its writer's clock may say anything).
      clock.now += 1;
      await make(readStore).catchUp();
      expect(await confirmedAt(), 'another worker, 1 ms later: confirmed again').to.equal(new Date(clock.now).toISOString());
    });

    it('a job cut off from the store for longer than a lease hands the projection back to the queue, and the next signal heals it', async () => {
      // Seen failing before: the job retried for ever, so the projection's one queued job stayed with the worker
      // that could not reach the store (BullMQ keeps a single follow-up behind a running job).
      const { outage, projector } = startedBehindOutage();
      await projector.waitFor(await appendAll(eventStore, serials(1)), 5_000);
      // The first run has ended and kept its lease standing, so the appends below are run by this worker itself.
      await until('the first run kept its lease standing', async () =>
        (await readStore.readControl()).some((doc) => doc._id === leaseId('serials') && doc['standing'] === true));
      outage.down = true;
      const head = await appendAll(eventStore, stolen(1));
      await until('the job retried', () => projector.counters().retries >= 3);
      expect(projector.counters().handedBack, 'not within the lease').to.equal(0);
      clock.now += TTL + 1;
      await until('the job handed its projection back', () => projector.counters().handedBack === 1);
      const retries = projector.counters().retries;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(projector.counters().retries, 'the ended job retries no more').to.equal(retries);

      outage.down = false;
      await appendAll(eventStore, serials(1, 1));
      await projector.waitFor(head + 1, 5_000);
      expect((await snapshot(readStore))['serials']).to.deep.equal(await cleanRebuild());
    });
  });
}

fencingSuite('in memory', async () => createMemoryReadStore());

describeMongo('projector fencing and healing over MongoDB', 'the fencing and healing tests over MongoDB', (leg) => {
  fencingSuite('MongoDB', () => createMongoReadStore(leg.url, leg.database('fencing')));
});
