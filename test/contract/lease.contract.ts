/**
 * Leases over a ReadStore (shared/read-model/projections/lease.ts), run against every store: one owner at a time, a fencing
 * token raised by every new owner, checkpoints refused under an older token, and a paused owner that finds out
 * when it resumes. Clocks are fake: time moves only when a test moves it. When a lease expires, by each process's
 * own clock: lease-clocks.contract.ts; what a refused owner is told: lease-refusals.contract.ts.
 */
import { expect } from 'chai';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { checkpointId, checkpointPrefix, leaseId, readControlDocs, type CheckpointState, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { LeaseLostError, ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';

// Not the default lease length, so that a lease made without the length asked for is seen.
export const TTL = 6_000;
export const serials = { name: 'serials', collection: 'serials' } as const;

export class FakeClock implements LeaseClock {
  #now = 1_000_000;
  monotonic = (): number => this.#now;
  wall = (): number => this.#now;
  advance = (ms: number): void => { this.#now += ms; };
}

/**
 * A store, a fake clock and a lease watch made afresh before each test of the suite it is called in (handed to `take`),
 * the store closed after it.
 */
export function eachTestsLeaseWorld(
  factory: () => Promise<ReadStore>, take: (fresh: { store: ReadStore; clock: FakeClock; watch: LeaseWatch }) => void,
): void {
  let store: ReadStore | undefined;
  beforeEach(async function () {
    store = await factory();
    take({ store, clock: new FakeClock(), watch: new LeaseWatch() });
  });
  afterEach(async function () {
    await store?.close();
  });
}

export const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

export function leaseContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`projection leases: ${name}`, function () {
    let store: ReadStore;
    let clock: FakeClock;
    /** What this test's process has seen of the leases: its owners' own writes and its reads. */
    let watch: LeaseWatch;
    eachTestsLeaseWorld(factory, (fresh) => ({ store, clock, watch } = fresh));
    const acquire = (owner: string, preempt = false) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch, preempt });
    const leaseDoc = async () => (await store.readControl()).find((doc) => doc._id === leaseId('serials')) as LeaseDoc;

    it('one owner at a time: a live lease is refused to another, an expired or released one is taken with a higher token', async function () {
      const first = (await acquire('a'))!;
      expect(first.token).to.equal(1);
      expect(await acquire('b'), 'while a holds it').to.equal(null);
      await first.release();
      const second = (await acquire('b'))!;
      expect(second.token).to.equal(2);
      clock.advance(TTL + 1);
      const third = (await acquire('c'))!;
      expect(third.token).to.equal(3);
    });

    it('of owners racing for a lease nobody ever held, exactly one gets it, and the lease stored is its own: it renews it', async function () {
      const owners = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((owner) => acquire(owner)));
      const won = owners.filter((lease) => lease !== null);
      expect(won.map((lease) => lease!.token)).to.deep.equal([1]);
      expect(await leaseDoc(), 'not overwritten by a loser').to.deep.include({ owner: won[0]!.owner, token: 1 });
      await won[0]!.ensure(true);
    });

    it('when the engine lets two owners\' writes of one expired lease both through, the checkpoint fence still lets only one of them in', async function () {
      await acquire('a');
      clock.advance(TTL + 1);
      // The lease's compare-and-set not atomic across processes (FerretDB): each write lands, whatever its condition.
      const lax: ReadStore = { ...store, setControl: (doc, condition, insert) => store.setControl(doc, doc._id === leaseId('serials') ? {} : condition, insert) };
      const owners = await Promise.all(['b', 'c'].map((owner) => ProjectionLease.acquire(lax, serials, owner, { ttlMs: TTL, clock, watch })));
      expect(owners.filter((lease) => lease !== null).map((lease) => lease!.token)).to.deep.equal([2]);
    });

    it('a new owner fences the old one: its checkpoint and its renewal are refused, and the checkpoint keeps the new owner\'s position', async function () {
      const old = (await acquire('a'))!;
      await old.saveCheckpoint(5);
      clock.advance(TTL + 1);
      const next = (await acquire('b'))!;
      expect(next.checkpoint.position).to.equal(5);
      await next.saveCheckpoint(8);
      expect(await refusal(old.saveCheckpoint(7))).to.be.instanceOf(LeaseLostError);
      expect(await refusal(old.ensure()), 'renewing after the pause').to.be.instanceOf(LeaseLostError);
      expect((await readProjectionStates(store)).map((state) => [state.name, state.position])).to.deep.equal([['serials', 8]]);
    });

    it('a checkpoint stores the event it applied last, keeps it while its position stays, and drops it once the position moves without one', async function () {
      const owner = (await acquire('a'))!;
      const storedApplied = async () => ((await readControlDocs(store)).get(checkpointId('serials', owner.generation)) as CheckpointState).applied;
      const applied = { id: '0f8e6f3c-5a4e-4b6b-9f57-2d1c3a4b5c6d', after: 4 };
      await owner.saveCheckpoint(7, owner.generation, undefined, undefined, applied);
      expect(await storedApplied()).to.deep.equal(applied);
      await owner.saveCheckpoint(7, owner.generation, { head: 7, at: new Date(clock.wall()).toISOString() });
      expect(await storedApplied(), 'an idle confirmation of the same position').to.deep.equal(applied);
      await owner.saveCheckpoint(9);
      expect(await storedApplied(), 'another position, its event unknown').to.equal(undefined);
    });

    it('an owner paused past its lease that nobody took renews it and goes on', async function () {
      const owner = (await acquire('a'))!;
      clock.advance(TTL * 2);
      await owner.ensure();
      await owner.saveCheckpoint(3);
      expect(await acquire('b'), 'renewed: not free').to.equal(null);
    });

    it('an older lease of the same owner (a restarted worker under the same name) can neither renew nor release the newer one', async function () {
      const before = (await acquire('a'))!;
      const after = (await acquire('a'))!;
      expect(after.token).to.equal(2);
      // The reason is what the runner logs: it says which token lost.
      expect(await refusal(before.ensure(true)), 'renewal under token 1').to.be.instanceOf(LeaseLostError)
        .and.have.property('message', 'lease of projection serials lost: token 1 was superseded');
      await before.release();
      expect(await acquire('b'), 'the newer lease is still held').to.equal(null);
      await after.saveCheckpoint(4);
      expect((await readProjectionStates(store)).map((state) => [state.name, state.position])).to.deep.equal([['serials', 4]]);
    });

    it('a fenced owner\'s release leaves the new owner\'s lease in place', async function () {
      const old = (await acquire('a'))!;
      clock.advance(TTL + 1);
      const next = (await acquire('b'))!;
      await old.release();
      expect(await acquire('c'), 'b still holds it').to.equal(null);
      await next.ensure(true);
    });

    it('a preempting owner (a rebuild) takes a live lease and fences the holder at once', async function () {
      const live = (await acquire('worker'))!;
      const rebuild = (await acquire('rebuild', true))!;
      expect(rebuild.token).to.be.above(live.token);
      expect(await refusal(live.saveCheckpoint(1))).to.be.instanceOf(LeaseLostError);
    });

    it('a new owner\'s token is above every one fenced into a checkpoint, even after the lease document went back to an older token', async function () {
      const rebuild = (await acquire('rebuild', true))!;
      await rebuild.startGeneration(2, 0);
      // A stale release written over the lease (an engine whose conditional updates are not atomic across processes).
      await store.setControl({ _id: leaseId('serials'), projection: 'serials', owner: 'worker', token: rebuild.token - 1, expires_at: 0 }, {}, false);
      const next = (await acquire('worker'))!;
      expect(next, 'taken at once, not refused by its own checkpoint fence').to.not.equal(null);
      expect(next.token).to.be.above(rebuild.token);
      expect(await refusal(rebuild.ensure(true))).to.be.instanceOf(LeaseLostError);
    });

    it('a parked checkpoint is seen by every process with the event\'s position and the reason', async function () {
      const owner = (await acquire('a'))!;
      await owner.saveCheckpoint(4);
      await owner.park(5, 'cannot apply');
      const [state] = await readProjectionStates(store);
      expect(state).to.deep.include({ name: 'serials', position: 4, status: 'parked', parked: { position: 5, reason: 'cannot apply' } });
      const next = (await ProjectionLease.acquire(store, serials, 'a', { ttlMs: TTL, clock }))!;
      expect(next.checkpoint).to.deep.include({ status: 'parked', parked: { position: 5, reason: 'cannot apply' } });
    });

    it('resuming a parked projection while a new owner takes its lease keeps the new owner\'s token: the old owner stays fenced', async function () {
      const parked = (await acquire('a'))!;
      await parked.saveCheckpoint(4);
      await parked.park(5, 'cannot apply');
      clock.advance(TTL + 1);
      let next: ProjectionLease | null = null;
      // The new owner fences the checkpoint just after the resume read it.
      const racing: ReadStore = {
        ...store,
        readControl: async () => {
          const docs = await store.readControl();
          next ??= await acquire('b');
          return docs;
        },
      };
      expect(await resumeProjection(racing, serialsProjection)).to.equal(true);
      expect(next, 'the new owner took the lease').to.not.equal(null);
      expect(await refusal(parked.saveCheckpoint(7)), 'the fenced owner stays fenced').to.be.instanceOf(LeaseLostError)
        .and.have.property('message', 'lease of projection serials lost: the checkpoint of generation 1 has a newer owner than token 1');
      const [state] = await readProjectionStates(store);
      expect(state).to.deep.include({ name: 'serials', position: 4, status: 'running', parked: null });
    });

    it('a released lease cannot be renewed: its owner must take it again; releasing it again, even once taken, says it was not fenced', async function () {
      const owner = (await acquire('a'))!;
      expect(await owner.release()).to.equal(true);
      expect(await refusal(owner.ensure(true))).to.be.instanceOf(LeaseLostError).and.have.property('message', 'lease of projection serials lost: released');
      expect((await acquire('b'))?.token, 'free for the next owner').to.equal(2);
      expect(await owner.release(), 'released before it was taken').to.equal(true);
      expect(await acquire('c'), 'b still holds it').to.equal(null);
    });

    it('a generation opened by a newer owner cannot be opened again by an older one', async function () {
      const older = (await acquire('rebuild-1', true))!;
      const newer = (await acquire('rebuild-2', true))!;
      await newer.startGeneration(2, 5);
      expect(await refusal(older.startGeneration(2, 0))).to.be.instanceOf(LeaseLostError)
        .and.have.property('message', 'lease of projection serials lost: generation 2 has a newer owner');
      await newer.saveCheckpoint(6, 2);
    });

    it('a checkpoint of a generation that has none (removed with its generation) is refused, saying so', async function () {
      const rebuild = (await acquire('rebuild', true))!;
      await rebuild.startGeneration(2, 0);
      await store.removeControl(checkpointId('serials', 2));
      expect(await refusal(rebuild.saveCheckpoint(3, 2))).to.be.instanceOf(LeaseLostError)
        .and.have.property('message', 'lease of projection serials lost: generation 2 has no checkpoint');
    });

    it('resuming a projection that never ran, or runs, says it was not parked', async function () {
      expect(await resumeProjection(store, serialsProjection), 'never ran').to.equal(false);
      await (await acquire('a'))!.saveCheckpoint(3);
      expect(await resumeProjection(store, serialsProjection), 'running').to.equal(false);
    });

    it('a new owner\'s token is above a lease\'s whose owner stopped between its lease write and its token\'s record', async function () {
      const stopping: ReadStore = {
        ...store,
        setControl: async (doc, condition, insert) => {
          if (doc._id !== leaseId('serials')) throw new Error('stopped after the lease write');
          return store.setControl(doc, condition, insert);
        },
      };
      await refusal(ProjectionLease.acquire(stopping, serials, 'a', { ttlMs: TTL, clock, watch }));
      const { token: left } = await leaseDoc();
      clock.advance(TTL + 1);
      expect((await acquire('b'))!.token).to.be.above(left);
    });

    it('a new owner\'s token is above a checkpoint\'s that neither the lease nor the pointer shows, so the owner is not refused at its own fence', async function () {
      await (await acquire('a'))!.release();
      // Fenced under token 9, which neither the lease document nor the pointer records (stale writes an engine let through).
      const checkpoint = (await store.readControl()).find((doc) => doc._id.startsWith(checkpointPrefix('serials')))!;
      await store.setControl({ ...checkpoint, token: 9 }, {}, false);
      expect((await acquire('b'))?.token).to.be.above(9);
    });

    it('an owner renewing between another\'s read of its expired lease and that one\'s write keeps its lease', async function () {
      const owner = (await acquire('a'))!;
      clock.advance(TTL + 1);
      // The owner, paused past its lease, renews just after the other read the lease as expired.
      const late: ReadStore = { ...store, readControl: async () => { const docs = await store.readControl(); await owner.ensure(); return docs; } };
      expect(await ProjectionLease.acquire(late, serials, 'b', { ttlMs: TTL, clock, watch }), 'the lease it read has changed').to.equal(null);
      await owner.saveCheckpoint(2);
      expect((await readProjectionStates(store)).map((state) => [state.name, state.position])).to.deep.equal([['serials', 2]]);
    });

    it('an owner whose lease is preempted just before it fences the checkpoint gets no lease, and leaves the newer token in place', async function () {
      let preempting: ProjectionLease | null = null;
      // A rebuild preempts after this worker wrote its lease and recorded its token, before its fence's write.
      const raced: ReadStore = {
        ...store,
        setControl: async (doc, condition, insert) => {
          if (doc._id.startsWith(checkpointPrefix('serials')) && preempting === null) preempting = await acquire('rebuild', true);
          return store.setControl(doc, condition, insert);
        },
      };
      expect(await ProjectionLease.acquire(raced, serials, 'worker', { ttlMs: TTL, clock })).to.equal(null);
      await preempting!.saveCheckpoint(3);
      expect((await readProjectionStates(store)).map((state) => [state.name, state.position])).to.deep.equal([['serials', 3]]);
    });

    it('an owner whose lease is preempted between its lease write and its fence gets no lease, and leaves the newer token in place', async function () {
      let preempting: ProjectionLease | null = null;
      // A rebuild preempts just after this worker wrote its lease, before it fences the checkpoint.
      const raced: ReadStore = {
        ...store,
        setControl: async (doc, condition, insert) => {
          const written = await store.setControl(doc, condition, insert);
          if (written && doc._id === leaseId('serials') && preempting === null) preempting = await acquire('rebuild', true);
          return written;
        },
      };
      expect(await ProjectionLease.acquire(raced, serials, 'worker', { ttlMs: TTL, clock })).to.equal(null);
      await preempting!.saveCheckpoint(3);
      expect((await readProjectionStates(store)).map((state) => [state.name, state.position])).to.deep.equal([['serials', 3]]);
    });
  });
}
