/**
 * The read-model clock (shared/read-model/public-api/read-model-clock.ts), fed projection states by hand: what one process
 * serves never goes back, a new generation is taken only once it is not behind, and the stamp of a set of
 * projections moves only with them. Expected values follow these rules as issue 20 states them. Freshness has its
 * own file (read-model-freshness.test.ts).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mock } from 'node:test';
import { ReadStoreUnavailableError, SNAPSHOT_TTL_MS } from '../../../shared/ports/read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import { nextServedState } from '../../../shared/read-model/public-api/served-state.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import { publicOperationHandlers } from '../../../shared/read-model/public-api/operations/index.ts';

const state = (name: string, generation: number, position: number, parked: ProjectionState['parked'] = null): ProjectionState => ({
  name, generation, position, status: parked ? 'parked' : 'running', parked, updated_at: null, confirmed: null,
});
/** A reading of these states (the view is never read here). */
const reading = (states: ProjectionState[]) => ({ view: createMemoryReadStore(), states });

describe('read-model clock', () => {
  it('answers a refresh asked while a poll is under way with a read begun after it (the change it was asked for)', async () => {
    let stored = [state('w', 1, 5)];
    let hold: { reading: () => void; release: Promise<void> } | undefined;
    const clock = await startReadModelClock(async () => {
      const states = stored;
      // A poll that read before the change and answers only after the refresh was asked for.
      const held = hold;
      hold = undefined;
      held?.reading();
      await held?.release;
      return reading(states);
    }, { intervalMs: 60_000 });
    try {
      let release = (): void => undefined;
      const reading = new Promise<void>((resolve) => {
        hold = { reading: resolve, release: new Promise<void>((done) => { release = done; }) };
      });
      const underWay = clock.refresh();
      await reading;
      stored = [state('w', 1, 9)];
      const asked = clock.refresh();
      release();
      await Promise.all([underWay, asked]);
      expect(clock.current(), 'the position stored when the refresh was asked').to.equal(9);
    } finally {
      clock.stop();
    }
  });

  it('reads the store on a projector\'s word only when the word names a checkpoint it does not serve yet', async () => {
    let stored = [state('w', 2, 10), state('v', 1, 4)];
    let reads = 0;
    const clock = await startReadModelClock(async () => {
      reads += 1;
      return reading(stored);
    }, { intervalMs: 60_000 });
    try {
      const readsFor = async (moved: Parameters<typeof clock.refresh>[0]) => {
        const before = reads;
        await clock.refresh(moved);
        return reads - before;
      };
      expect(await readsFor({ projection: 'w', generation: 2, position: 10 }), 'the position served').to.equal(0);
      expect(await readsFor({ projection: 'w', generation: 2, position: 7 }), 'a position behind it').to.equal(0);
      expect(await readsFor({ projection: 'w', generation: 1, position: 90 }), 'an older generation').to.equal(0);
      expect(await readsFor({ projection: 'w', generation: 2, position: 11 }), 'a position past it').to.equal(1);
      expect(await readsFor({ projection: 'w', generation: 3, position: 10 }), 'a newer generation').to.equal(1);
      expect(await readsFor({ projection: 'x', generation: 1, position: 1 }), 'a projection not served').to.equal(1);
      expect(await readsFor({ projection: 'w' }), 'a word naming the projection alone').to.equal(1);
      expect(await readsFor(undefined), 'a refresh without a word').to.equal(1);
      stored = [state('w', 2, 12), state('v', 1, 4)];
      expect(await readsFor({ projection: 'w', generation: 2, position: 12 })).to.equal(1);
      expect(clock.current(), 'what the read found').to.equal(4);
      expect(clock.projections().find((p) => p.name === 'w')?.position).to.equal(12);
      // The store went back (a checkpoint reset): what is served stays, and every word is read until it caught up.
      stored = [state('w', 2, 3), state('v', 1, 4)];
      await clock.refresh();
      expect(await readsFor({ projection: 'w', generation: 2, position: 5 }), 'the store behind what is served').to.equal(1);
    } finally {
      clock.stop();
    }
  });

  it('moves a projection forward within its generation, and takes another generation only when it is not behind', () => {
    const served = { generation: 1, position: 50 };
    expect(nextServedState(undefined, state('w', 3, 7))).to.deep.equal({ generation: 3, position: 7 });
    expect(nextServedState(served, state('w', 1, 60))).to.deep.equal({ generation: 1, position: 60 });
    expect(nextServedState(served, state('w', 1, 40)), 'a reset').to.deep.equal(served);
    expect(nextServedState(served, state('w', 2, 49)), 'a switch still behind').to.deep.equal(served);
    expect(nextServedState(served, state('w', 2, 50)), 'a switch caught up').to.deep.equal({ generation: 2, position: 50 });
    // An older generation is a read store put back from a copy made before a rebuild: taken once its projector brought
    // it past what was served, as a newer one is.
    expect(nextServedState(served, state('w', 0, 50)), 'an older generation at it (a stale pointer)').to.deep.equal(served);
    expect(nextServedState(served, state('w', 0, 90)), 'an older generation past it').to.deep.equal({ generation: 0, position: 90 });
  });

  it('never moves a served position or a stamp\'s position back, takes another generation only where it is not behind, and moves a stamp only with its own projections', async () => {
    const names = ['watches', 'serials', 'collections'];
    const step = fc.record({
      name: fc.constantFrom(...names), generation: fc.integer({ min: 0, max: 3 }), position: fc.integer({ min: 0, max: 100 }),
    });
    const seed = 20261124;
    console.log(`      seed ${seed}`);
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
      const latest = new Map<string, ProjectionState>();
      const clock = await startReadModelClock(async () => reading([...latest.values()]), { intervalMs: 60_000 });
      try {
        const views = Object.fromEntries(names.map((name) => [name, clock.view([name])]));
        const served = new Map<string, { generation: number; position: number }>();
        let current = clock.current();
        for (const s of steps) {
          const stampsBefore = Object.fromEntries(names.map((name) => [name, views[name]!()]));
          latest.set(s.name, state(s.name, s.generation, s.position));
          await clock.refresh();
          const before = served.get(s.name);
          const stamp = views[s.name]!();
          const [generation, position] = stamp.key.split('.').map(Number) as [number, number];
          // Taken when first seen, or not behind (an older generation: past it); else what was served stays.
          const expected = before === undefined || s.position > before.position || (s.generation >= before.generation && s.position === before.position)
            ? { generation: s.generation, position: s.position } : before;
          expect({ generation, position }).to.deep.equal(expected);
          expect(stamp.position).to.equal(position);
          expect(stamp.behindAt).to.equal(expected.generation === s.generation && expected.position === s.position ? null : Math.min(s.position, position));
          served.set(s.name, expected);
          for (const other of names.filter((name) => name !== s.name)) expect(views[other]!(), other).to.equal(stampsBefore[other]);
          expect(clock.current()).to.equal(Math.min(...[...served.values()].map((v) => v.position)));
          // A projection seen for the first time may stand below the others; one already served never lowers it.
          if (before !== undefined) expect(clock.current()).to.be.at.least(current);
          current = clock.current();
        }
      } finally {
        clock.stop();
      }
    }), { seed, numRuns: 200 });
  });

  it('lists the parked projections with the position and reason they were parked at', async () => {
    const reason = 'event 41 (WatchRepriced): boom';
    const clock = await startReadModelClock(async () => reading([state('watches', 0, 40, { position: 41, reason }), state('serials', 0, 45)]), { intervalMs: 60_000 });
    clock.stop();
    expect(clock.parked).to.deep.equal([{ name: 'watches', position: 41, reason }]);
  });

  it('says the store unreachable after a poll that failed, and reachable again after one that read it', async () => {
    let failing = false;
    const clock = await startReadModelClock(async () => {
      if (failing) throw new Error('connect ECONNREFUSED');
      return reading([state('watches', 0, 4)]);
    }, { intervalMs: 60_000 });
    clock.stop();
    expect(clock.reachable).to.equal(true);
    failing = true;
    expect(await clock.refresh().then(() => undefined, (error: unknown) => error)).to.be.instanceOf(ReadStoreUnavailableError);
    expect(clock.reachable).to.equal(false);
    failing = false;
    await clock.refresh();
    expect(clock.reachable).to.equal(true);
  });

  it('gives as updated_at the latest time any projection stored its state, whatever the order they are read in', async () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
    const stored = (name: string, position: number, updatedAt: string | null): ProjectionState => ({ ...state(name, 1, position), updated_at: updatedAt });
    let states = [stored('watches', 5, at(2)), stored('serials', 5, null), stored('collections', 5, at(1))];
    const clock = await startReadModelClock(async () => reading(states), { intervalMs: 60_000 });
    clock.stop();
    expect(clock.updatedAt).to.equal(at(2));
    states = [stored('watches', 5, at(2)), stored('serials', 6, null), stored('collections', 6, at(3))];
    await clock.refresh();
    expect(clock.updatedAt, 'the collections moved at 3 s').to.equal(at(3));
    states = [stored('watches', 7, at(2.5)), stored('serials', 7, null), stored('collections', 6, at(3))];
    await clock.refresh();
    expect(clock.updatedAt, 'a move stored earlier than 3 s, and one stored with no time').to.equal(at(3));
  });

  it('reuses the latest snapshot up to half a snapshot\'s life (its reads end within it), then reads a new one', async () => {
    let monotonic = 0;
    let reads = 0;
    const clock = await startReadModelClock(async () => {
      reads += 1;
      return reading([state('watches', 0, reads)]);
    }, { intervalMs: 60_000, monotonic: () => monotonic });
    clock.stop();
    const first = await clock.reading();
    monotonic = SNAPSHOT_TTL_MS / 2;
    expect(await clock.reading(), 'half its life old').to.equal(first);
    expect(reads).to.equal(1);
    monotonic = SNAPSHOT_TTL_MS / 2 + 1;
    const second = await clock.reading();
    expect(second, 'older').to.not.equal(first);
    expect(reads).to.equal(2);
    expect(second.stamp(['watches']).position).to.equal(2);
    expect(await clock.reading(true), 'renewed on demand').to.not.equal(second);
    expect(reads).to.equal(3);
  });

  describe('the background poll (node:test\'s mock timers drive setInterval)', () => {
    beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
    afterEach(() => mock.timers.reset());
    const settle = async () => {
      for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };

    it('polls every intervalMs, one poll at a time, reports each failed poll once, goes on after a failure, and stops', async () => {
      let reads = 0;
      let held: { promise: Promise<void>; open: () => void } | undefined;
      const errors: unknown[] = [];
      const clock = await startReadModelClock(async () => {
        reads += 1;
        if (held) {
          await held.promise;
          throw new Error('connect ECONNREFUSED');
        }
        return reading([state('watches', 0, reads)]);
      }, { intervalMs: 50, onError: (error) => errors.push(error) });
      try {
        expect(reads, 'the first poll, at the start').to.equal(1);
        mock.timers.tick(49);
        await settle();
        expect(reads).to.equal(1);
        mock.timers.tick(1);
        await settle();
        expect(reads, 'after 50 ms').to.equal(2);
        mock.timers.tick(50);
        await settle();
        expect(reads, 'after 100 ms').to.equal(3);
        let open = () => {};
        held = { promise: new Promise((resolve) => { open = resolve; }), open: () => open() };
        mock.timers.tick(50);
        await settle();
        expect(reads, 'a poll that hangs').to.equal(4);
        mock.timers.tick(50);
        mock.timers.tick(50);
        await settle();
        expect(reads, 'no second poll while one is running').to.equal(4);
        const hanging = held;
        held = undefined;
        hanging.open();
        await settle();
        expect(errors, 'its failure, reported once').to.have.length(1);
        expect(errors[0]).to.be.instanceOf(ReadStoreUnavailableError);
        mock.timers.tick(50);
        await settle();
        expect(reads, 'polling again after the failure').to.equal(5);
      } finally {
        clock.stop();
      }
      mock.timers.tick(500);
      await settle();
      expect(reads, 'stopped').to.equal(5);
    });

    it('reads only once the latest snapshot is pollAfterMs old (asked at each period), counting a refresh\'s read, and every period once that is 0', async () => {
      let reads = 0;
      let now = 0;
      let pollAfterMs = 1_000;
      const clock = await startReadModelClock(async () => {
        reads += 1;
        return reading([state('watches', 0, reads)]);
      }, { intervalMs: 100, monotonic: () => now, pollAfterMs: () => pollAfterMs });
      const advance = async (periods: number) => {
        for (let i = 0; i < periods; i += 1) {
          now += 100;
          mock.timers.tick(100);
          await settle();
        }
      };
      try {
        expect(reads, 'the first poll, at the start').to.equal(1);
        await advance(9);
        expect(reads, 'nine periods: the snapshot is 900 ms old').to.equal(1);
        await advance(1);
        expect(reads, 'at 1 s').to.equal(2);
        await advance(5);
        await clock.refresh();
        expect(reads, 'a refresh (the projectors\' word) reads at once').to.equal(3);
        await advance(9);
        expect(reads, '900 ms after the refresh\'s read').to.equal(3);
        pollAfterMs = 0;
        await advance(2);
        expect(reads, 'every period again once the word is not heard').to.equal(5);
      } finally {
        clock.stop();
      }
    });

    it('leaves no rejection unhandled when a background poll fails and nobody asked for its errors', async () => {
      const unhandled: unknown[] = [];
      const listener = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', listener);
      let failing = false;
      const clock = await startReadModelClock(async () => {
        if (failing) throw new Error('connect ECONNREFUSED');
        return reading([state('watches', 0, 1)]);
      }, { intervalMs: 50 });
      try {
        failing = true;
        mock.timers.tick(50);
        await settle();
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(unhandled).to.deep.equal([]);
        expect(clock.reachable).to.equal(false);
      } finally {
        clock.stop();
        process.off('unhandledRejection', listener);
      }
    });
  });

  it('says, of a set of projections, the highest position any of them was answered ahead at, which a lower one told later leaves as it is', async () => {
    const clock = await startReadModelClock(async () => reading([state('serials', 1, 10), state('watches', 1, 10)]), { intervalMs: 60_000 });
    clock.stop();
    expect(clock.aheadOf(['serials']), 'none answered ahead yet').to.equal(0);
    // A theft answered from its document at 12, then (a request that began earlier, ending later) another serial's
    // document at 11: what this process served of the serials stands at 12.
    clock.answeredAhead(['serials'], 12);
    clock.answeredAhead(['serials'], 11);
    expect(clock.aheadOf(['serials'])).to.equal(12);
    clock.answeredAhead(['serials', 'watches'], 11);
    expect(clock.aheadOf(['serials'])).to.equal(12);
    expect(clock.aheadOf(['watches'])).to.equal(11);
    expect(clock.aheadOf(['watches', 'serials']), 'the highest of the set').to.equal(12);
    expect(clock.aheadOf(['collections']), 'a projection none was answered ahead of').to.equal(0);
  });

  it('declares for every operation collections written by a projection of the same name', () => {
    const written = new Map(PROJECTIONS.map((p) => [p.collection as string, p.name]));
    for (const operation of publicOperationHandlers) {
      for (const collection of operation.reads) expect(written.get(collection), operation.spec.id).to.equal(collection);
    }
  });
});
