/**
 * The read-model clock (shared/public-api/read-model-clock.ts), fed projection states by hand: what one process
 * serves never goes back, a new generation is taken only once it is not behind, and the stamp of a set of
 * projections moves only with them. Expected values follow these rules as issue 20 states them.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { ProjectionState } from '../../../shared/projections/projection-states.ts';
import { nextServedState, startReadModelClock } from '../../../shared/public-api/read-model-clock.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { PROJECTIONS } from '../../../shared/projections/index.ts';
import { publicOperationHandlers } from '../../../shared/public-api/operations/index.ts';

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

  it('moves a projection forward within its generation, and takes a new generation only when it is not behind', () => {
    const served = { generation: 1, position: 50 };
    expect(nextServedState(undefined, state('w', 3, 7))).to.deep.equal({ generation: 3, position: 7 });
    expect(nextServedState(served, state('w', 1, 60))).to.deep.equal({ generation: 1, position: 60 });
    expect(nextServedState(served, state('w', 1, 40)), 'a reset').to.deep.equal(served);
    expect(nextServedState(served, state('w', 2, 49)), 'a switch still behind').to.deep.equal(served);
    expect(nextServedState(served, state('w', 2, 50)), 'a switch caught up').to.deep.equal({ generation: 2, position: 50 });
    expect(nextServedState(served, state('w', 0, 90)), 'an older generation').to.deep.equal(served);
  });

  it('never moves a served position, a generation or a stamp back, and moves a stamp only with its own projections', async () => {
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
          // Taken when first seen or not behind; else what was served stays.
          const expected = before === undefined || (s.generation >= before.generation && s.position >= before.position)
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

  it('declares for every operation collections written by a projection of the same name', () => {
    const written = new Map(PROJECTIONS.map((p) => [p.collection as string, p.name]));
    for (const operation of publicOperationHandlers) {
      for (const collection of operation.reads) expect(written.get(collection), operation.spec.id).to.equal(collection);
    }
  });
});
