/**
 * When a projection lease (shared/read-model/projections/lease.ts) expires, as each process judges it by what it
 * observes itself, run against every store: a lease is taken a whole lease after the taker first saw it unchanged,
 * whatever the holder's wall clock wrote; a renewal seen starts the watch again; an owner renews once a third of its
 * lease has passed on its own clock; and the very millisecond of an expiry. Clocks are fake: time moves only when a
 * test moves it, and other processes' wall clocks are offset both ways.
 */
import { expect } from 'chai';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { leaseId, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
import { FakeClock, TTL, eachTestsLeaseWorld, serials } from './lease.contract.ts';

export function leaseClocksContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`projection lease expiry, by each process's own clock: ${name}`, function () {
    let store: ReadStore;
    let clock: FakeClock;
    /** What this test's process has seen of the leases: its owners' own writes and its reads. */
    let watch: LeaseWatch;
    eachTestsLeaseWorld(factory, (fresh) => ({ store, clock, watch } = fresh));
    const acquire = (owner: string, preempt = false) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch, preempt });
    const acquireStanding = (owner: string) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch, standing: true });
    const leaseDoc = async () => (await store.readControl()).find((doc) => doc._id === leaseId('serials')) as LeaseDoc;
    const standingFor = () => ProjectionLease.standingFor(store, 'serials', { ttlMs: TTL, clock, watch });

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
  });
}
