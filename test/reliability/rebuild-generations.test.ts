/**
 * Issue 20, "Why" 1: a rebuild beside live projector workers must lose nothing and show readers one generation at
 * a time. Each case steers a live worker and the rebuild (test/support/controlled-read-store.ts) into the
 * interleaving that lost updates on the code before generations: a live job across the switch, a job reading the
 * checkpoint between the switch and the reset, the reset's two writes racing a live put, a crash between any two
 * steps of the switch, readers looking between two steps. After each, the read models must equal a clean rebuild.
 */
import { expect } from 'chai';
import { collectionDefined, watchPriceChanged, watchPublished, watchStockChanged } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore, WriteOp } from '../../shared/ports/read-store.ts';
import { rebuild } from '../../shared/projections/rebuild.ts';
import { PROJECTIONS } from '../../shared/projections/index.ts';
import type { Projection } from '../../shared/projections/projection.ts';
import { watchesProjection } from '../../shared/projections/watches.projection.ts';
import { appendAll } from '../projector/support/history.ts';
import { controlledReadStore, gate, isRead, within, type Call, type ControlledReadStore } from '../support/controlled-read-store.ts';
import { cleanRebuildView, readersView, simulatedWorker, type SimulatedWorker } from '../support/simulated-workers.ts';

const STEP_MS = 5_000;

const checkpointWrite = (call: Call): boolean => call.method === 'write' && call.args[0] === 'checkpoints';
const checkpointAt = (position: number) => (call: Call): boolean =>
  checkpointWrite(call) && (call.args[1] as WriteOp[]).some((op) => 'put' in op && op.put.position === position);

describe('a rebuild beside live projector workers: one generation at a time, nothing lost (issue 20, why 1)', function () {
  this.timeout(20_000);
  let eventStore: EventStore;
  let shared: ReadStore;
  let live: SimulatedWorker;
  let rebuilder: ControlledReadStore;

  async function setUp(projections: readonly Projection[]): Promise<void> {
    eventStore = openSqliteEventStore(':memory:');
    shared = createMemoryReadStore();
    live = simulatedWorker(eventStore, shared, { projections });
    rebuilder = controlledReadStore(shared);
    await appendAll(eventStore, [
      collectionDefined('tempo'),
      watchPublished('TMP-1', 'tempo', { price_cents: 1_000_000 }),
      watchPublished('TMP-2', 'tempo', { price_cents: 2_000_000 }),
    ]);
    await live.projector.catchUp();
  }

  afterEach(async () => {
    await live?.close();
    await eventStore?.close();
  });

  /**
   * Runs a rebuild of `projections` through `rebuilder`; `beforeSwitch` runs once the new generation is built, and
   * `onStep(k)` after the k-th call that changes the store from then on (the switch's steps, whatever they are).
   * Answers how many such steps there were.
   */
  async function rebuildWithSteps(
    projections: readonly Projection[], beforeSwitch: () => Promise<void>, onStep: (step: number) => Promise<void> = async () => {},
  ): Promise<number> {
    let switching = false;
    let steps = 0;
    rebuilder.intercept({
      method: /.*/, stage: 'after', when: (call) => switching && !isRead(call),
      run: async () => {
        steps += 1;
        await onStep(steps);
      },
    });
    await rebuild({
      eventStore, readStore: rebuilder.store, projections,
      beforeSwitch: async () => {
        await beforeSwitch();
        switching = true;
      },
    });
    return steps;
  }

  it('a live job that applied an event to the old generation and goes on after the switch loses nothing', async () => {
    await setUp([watchesProjection]);
    const paused = gate();
    let liveRun: Promise<void> | undefined;
    await rebuildWithSteps([watchesProjection], async () => {
      // Appended after the rebuild read the history: only the live job sees them, one per batch.
      await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000), watchStockChanged('TMP-1', 'low_stock')]);
      live.control.intercept({ method: 'write', when: checkpointAt(4), stage: 'after', times: 1, run: paused.pass });
      liveRun = live.projector.catchUp();
      await within(Promise.race([paused.reached, liveRun]), STEP_MS, 'the live job applying event 4');
    });
    paused.open();
    await within(liveRun!, STEP_MS, 'the live job after the switch');
    await live.projector.catchUp();
    expect(await readersView(shared)).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
  });

  /**
   * The live model is ahead of the rebuilt one (event 4 only in the old generation); a live job reading the
   * checkpoint at the `at`-th step of the switch applies event 5 to whatever it then finds and stores its
   * checkpoint once the rebuild is over.
   */
  async function liveJobStartingAtStep(at: number, splitWrites: boolean): Promise<number> {
    await setUp([watchesProjection]);
    const paused = gate();
    let liveRun: Promise<void> | undefined;
    rebuilder.splitWrites(splitWrites);
    const steps = await rebuildWithSteps([watchesProjection], async () => {
      await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
      await live.projector.catchUp();
      await appendAll(eventStore, [watchPriceChanged('TMP-2', 2_100_000, 2_000_000)]);
    }, async (step) => {
      if (step !== at) return;
      live.control.intercept({ method: 'write', when: checkpointWrite, times: 1, run: paused.pass });
      liveRun = live.projector.catchUp();
      await within(Promise.race([paused.reached, liveRun]), STEP_MS, `the live job started at step ${at}`);
    });
    paused.open();
    if (liveRun) await within(liveRun, STEP_MS, 'the live job');
    await live.projector.catchUp();
    expect(await readersView(shared), `live job started at step ${at} of ${steps}`).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
    return steps;
  }

  it('a live job that reads the checkpoint between the switch and the checkpoint reset loses nothing', async () => {
    const steps = await liveJobStartingAtStep(1, false);
    expect(steps, 'steps of the switch').to.be.at.least(1);
  });

  it('a live job whose put lands between any two single writes of the switch (a bulk is not atomic) loses nothing', async () => {
    const steps = await liveJobStartingAtStep(1, true);
    for (let at = 2; at <= steps; at++) {
      await live.close();
      await eventStore.close();
      await liveJobStartingAtStep(at, true);
    }
  });

  it('a rebuild that crashes after any step of its switch leaves read models that the live workers bring to a clean rebuild', async () => {
    const crashAfter = async (at: number | undefined): Promise<number> => {
      await setUp([watchesProjection]);
      rebuilder.splitWrites(true);
      const rebuilt = rebuildWithSteps([watchesProjection], async () => {
        await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
        await live.projector.catchUp();
      }, async (step) => {
        if (step === at) rebuilder.kill();
      });
      const steps = at === undefined ? await rebuilt : await rebuilt.then(() => -1, () => at);
      await appendAll(eventStore, [watchStockChanged('TMP-2', 'low_stock')]);
      await live.projector.catchUp();
      expect(await readersView(shared), `crash after step ${at ?? 'none'}`).to.deep.equal(await cleanRebuildView(eventStore, [watchesProjection]));
      return steps;
    };
    const steps = await crashAfter(undefined);
    expect(steps, 'steps of the switch').to.be.at.least(1);
    for (let at = 1; at <= steps; at++) {
      await live.close();
      await eventStore.close();
      expect(await crashAfter(at), `the rebuild crashed at step ${at}`).to.equal(at);
    }
  });

  it('readers looking after any step of the switch see the old generation or the new one, never a mix', async () => {
    await setUp(PROJECTIONS);
    await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
    const old = await readersView(shared);
    const rebuilt = await cleanRebuildView(eventStore);
    expect(old, 'the two generations differ').to.not.deep.equal(rebuilt);
    const seen: unknown[] = [];
    rebuilder.splitWrites(true);
    const steps = await rebuildWithSteps(PROJECTIONS, async () => {}, async () => {
      seen.push(await readersView(shared));
    });
    expect(steps).to.be.at.least(1);
    seen.forEach((view, index) => expect([old, rebuilt], `readers' view after step ${index + 1} of ${steps}`).to.deep.include(view));
    expect(seen.at(-1)).to.deep.equal(rebuilt);
  });
});
