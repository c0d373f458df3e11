/**
 * Leases over a ReadStore (shared/read-model/projections/lease.ts), run against every store: one owner at a time, a fencing
 * token raised by every new owner, checkpoints refused under an older token, and a paused owner that finds out
 * when it resumes. Clocks are fake: time moves only when a test moves it.
 */
import { expect } from 'chai';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { checkpointId, checkpointPrefix, leaseId, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
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

export const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

export function leaseContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`projection leases: ${name}`, function () {
    let store: ReadStore;
    let clock: FakeClock;
    /** What this test's process has seen of the leases: its owners' own writes and its reads. */
    let watch: LeaseWatch;
    beforeEach(async function () {
      store = await factory();
      clock = new FakeClock();
      watch = new LeaseWatch();
    });
    afterEach(async function () {
      await store?.close();
    });
    const acquire = (owner: string, preempt = false) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch, preempt });
    const acquireStanding = (owner: string) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch, standing: true });
    const leaseDoc = async () => (await store.readControl()).find((doc) => doc._id === leaseId('serials')) as LeaseDoc;
    const standingFor = () => ProjectionLease.standingFor(store, 'serials', { ttlMs: TTL, clock, watch });

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

    it('an owner paused past its lease that nobody took renews it and goes on', async function () {
      const owner = (await acquire('a'))!;
      clock.advance(TTL * 2);
      await owner.ensure();
      await owner.saveCheckpoint(3);
      expect(await acquire('b'), 'renewed: not free').to.equal(null);
    });

    /**
     * Another process: its own watch, a monotonic clock with an origin of its own, and a wall clock `wallOffsetMs`
     * from the test's (a machine whose clock is wrong); time moves for all of them when the test moves it.
     */
    function otherProcess(wallOffsetMs: number, wallStandsStill = false) {
      const origin = clock.wall();
      const own: LeaseClock = {
        monotonic: () => clock.monotonic() - 777_777,
        wall: () => (wallStandsStill ? origin : clock.wall()) + wallOffsetMs,
      };
      const options = { ttlMs: TTL, clock: own, watch: new LeaseWatch(), standing: true };
      return { acquire: (owner: string) => ProjectionLease.acquire(store, serials, owner, options) };
    }

    /** `taker` refuses the lease a millisecond short of a whole lease of watching it unchanged, and takes it then. */
    async function takenAfterAWholeLease(taker: { acquire(owner: string): Promise<ProjectionLease | null> }, holderToken: number, watched: string) {
      clock.advance(TTL - 1);
      expect(await taker.acquire('b'), `${watched} a millisecond less than a lease`).to.equal(null);
      clock.advance(1);
      expect((await taker.acquire('b'))?.token, `${watched} a whole lease`).to.equal(holderToken + 1);
    }

    it('a holder whose wall clock runs 150 s ahead and dies is taken over a lease after the taker first saw it, not 150 s later', async function () {
      const holder = (await otherProcess(150_000).acquire('ahead'))!;
      expect((await leaseDoc()).expires_at, 'its expiry written on its own clock').to.equal(clock.wall() + 150_000 + TTL);
      const taker = otherProcess(0);
      expect(await taker.acquire('b'), 'seen for the first time').to.equal(null);
      await takenAfterAWholeLease(taker, holder.token, 'seen unchanged');
    });

    it('a live holder whose wall clock runs 150 s behind is not taken over while it renews, and is once it stops', async function () {
      const holder = (await otherProcess(-150_000).acquire('behind'))!;
      const taker = otherProcess(0);
      for (let step = 0; step <= 6; step += 1) {
        expect(await taker.acquire('b'), `after ${(step * 0.4).toFixed(1)} TTL, its written expiry long past on the taker's clock`).to.equal(null);
        clock.advance(TTL * 0.4);
        await holder.ensure();
      }
      expect(await taker.acquire('b'), 'its last renewal, seen now').to.equal(null);
      await takenAfterAWholeLease(taker, holder.token, 'no renewal seen for');
    });

    it('a process that never saw a lease (just started) watches it a whole lease before taking it, however old its written expiry', async function () {
      const holder = (await acquire('a'))!;
      clock.advance(TTL * 3);
      const started = otherProcess(0);
      expect(await started.acquire('b'), 'its first sight of a lease that lapsed long ago by the written time').to.equal(null);
      await takenAfterAWholeLease(started, holder.token, 'watched');
    });

    it('a renewal seen starts the watch again: the lease is taken a whole lease after the taker first saw the renewal, not after its written expiry', async function () {
      const holder = (await otherProcess(0).acquire('a'))!;
      const taker = otherProcess(0);
      expect(await taker.acquire('b')).to.equal(null);
      clock.advance(TTL * 0.9);
      await holder.ensure();
      clock.advance(TTL * 0.2);
      expect(await taker.acquire('b'), 'the renewal, first seen now').to.equal(null);
      clock.advance(TTL * 0.9);
      expect(await taker.acquire('b'), 'past the renewed written expiry, not a lease after the renewal was seen').to.equal(null);
      clock.advance(TTL * 0.1);
      expect((await taker.acquire('b'))?.token).to.equal(holder.token + 1);
    });

    it('a renewal is seen even when the holder\'s wall clock stands still and writes the same expiry again', async function () {
      const holder = (await otherProcess(0, true).acquire('still'))!;
      const written = (await leaseDoc()).expires_at;
      const taker = otherProcess(0);
      expect(await taker.acquire('b')).to.equal(null);
      clock.advance(TTL * 0.5);
      await holder.ensure();
      expect((await leaseDoc()).expires_at, 'the same expiry written again').to.equal(written);
      clock.advance(TTL * 0.6);
      expect(await taker.acquire('b'), 'renewed half a lease ago').to.equal(null);
      clock.advance(TTL);
      expect((await taker.acquire('b'))?.token, 'no renewal for a whole lease').to.equal(holder.token + 1);
    });

    it('an owner renews its lease at the first check once a third of it has passed on its own clock, not at a check before', async function () {
      const owner = (await acquire('a'))!;
      const taken = clock.wall();
      clock.advance(TTL / 3 - 1);
      await owner.ensure();
      expect((await leaseDoc()).expires_at, 'a millisecond before a third: not renewed').to.equal(taken + TTL);
      clock.advance(1);
      await owner.ensure();
      expect((await leaseDoc()).expires_at, 'at a third: renewed').to.equal(clock.wall() + TTL);
    });

    it('an owner renews once a third of its lease has passed on its own clock, so a live owner is never taken over', async function () {
      const owner = (await acquire('a'))!;
      // Checked every 0.4 TTL, each time before the owner's next check: at 1.2 TTL a lease renewed only at its
      // expiry (or not before a full TTL on the owner's clock) has lapsed, one renewed past a third has not.
      for (let step = 1; step <= 6; step += 1) {
        clock.advance(TTL * 0.4);
        expect(await acquire('b'), `after ${(step * 0.4).toFixed(1)} TTL`).to.equal(null);
        await owner.ensure();
      }
    });

    it('a lease with a millisecond left is not taken; one a millisecond past its expiry is', async function () {
      await acquire('a');
      clock.advance(TTL - 1);
      expect(await acquire('b'), 'one millisecond left').to.equal(null);
      clock.advance(2);
      expect((await acquire('b'))?.token).to.equal(2);
    });

    it('at the very millisecond a lease expires, another owner may take it and it is no longer reported standing', async function () {
      await acquireStanding('a');
      clock.advance(TTL);
      expect(await standingFor(), 'expired: not standing').to.equal(null);
      expect((await acquire('b'))?.token, 'expired: free').to.equal(2);
    });

    it('only a standing owner\'s unexpired lease is reported standing: not a lease nobody took, one taken without standing, or one expired', async function () {
      expect(await standingFor(), 'no lease').to.equal(null);
      const rebuild = (await acquire('rebuild', true))!;
      expect(await standingFor(), 'taken without standing (a rebuild\'s)').to.equal(null);
      await rebuild.release();
      await acquireStanding('worker');
      expect(await standingFor(), 'a standing owner\'s, just taken: a whole lease left').to.equal(TTL);
      clock.advance(TTL + 1);
      expect(await standingFor(), 'expired').to.equal(null);
    });

    it('a standing lease stays standing when its owner renews it, until the renewed expiry', async function () {
      const owner = (await acquireStanding('worker'))!;
      clock.advance(TTL / 2);
      await owner.ensure();
      expect(await standingFor()).to.equal(TTL);
      clock.advance(TTL - 1);
      expect(await standingFor(), 'a millisecond before the renewed expiry').to.equal(1);
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
