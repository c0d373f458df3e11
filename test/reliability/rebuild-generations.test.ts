/**
 * Issue 20, "Why" 1: a rebuild beside live projector workers must lose nothing and show readers one generation at
 * a time. Each case steers a live worker and the rebuild (test/support/controlled-read-store.ts) into an
 * interleaving that lost updates before generations (main at fb19e76 switched the collections, then reset the
 * checkpoints): a live job across the switch; a live job starting at any step of the rebuild's end (from taking
 * the leases to dropping the old generation), its put landing between any two single writes; a crash after any
 * of those steps; readers looking after any of them; a rebuild paused past its lease just before its switch.
 * After each, the read models must equal a clean rebuild, and no reader may have seen a position go back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { collectionDefined, watchPriceChanged, watchPublished, watchStockChanged } from '../fixtures/events.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { GENERATIONS_ID, type ControlDoc, type ReadStore } from '../../shared/ports/read-store.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../shared/read-model/projections/lease.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { watchesProjection } from '../../shared/read-model/projections/watches.projection.ts';
import { appendAll } from '../projector/support/history.ts';
import { until } from '../support/until.ts';
import { controlledReadStore, gate, isRead, within, type Call, type ControlledReadStore } from '../support/controlled-read-store.ts';
import {
  cleanRebuildView, fakeClock, positionsSeen, readersView, simulatedWorker, type FakeClock, type SimulatedWorker,
} from '../support/simulated-workers.ts';

const STEP_MS = 5_000;

const controlDoc = (call: Call): ControlDoc | undefined => (call.method === 'setControl' ? call.args[0] as ControlDoc : undefined);
/** A projection's checkpoint stored at `position` (the runner's `saveCheckpoint`). */
const checkpointAt = (position: number) => (call: Call): boolean =>
  controlDoc(call)?._id.startsWith('checkpoint:') === true && controlDoc(call)?.['position'] === position;
/** The rebuild taking a projection's lease: it has built its generation and now fences the live workers. */
const takingLease = (call: Call): boolean => controlDoc(call)?._id.startsWith('lease:') === true;
const documentsWrite = (call: Call): boolean => call.method === 'generation.write' || call.method === 'write';

describe('a rebuild beside live projector workers: one generation at a time, nothing lost (issue 20, why 1)', function () {
  this.timeout(30_000);
  let eventStore: EventStore;
  let shared: ReadStore;
  let live: SimulatedWorker;
  let rebuilder: ControlledReadStore;
  let clock: FakeClock;
  /** Every position a reader saw go back, from the interceptions that look. */
  let wentBack: string[];
  let seen: Map<string, number>;

  async function setUp(projections: readonly Projection[]): Promise<void> {
    eventStore = openSqliteEventStore(':memory:');
    shared = createMemoryReadStore();
    clock = fakeClock();
    live = simulatedWorker(eventStore, shared, { projections, clock });
    rebuilder = controlledReadStore(shared);
    wentBack = [];
    seen = new Map();
    await appendAll(eventStore, [
      collectionDefined('tempo'),
      watchPublished('TMP-1', 'tempo', { price_cents: 1_000_000 }),
      watchPublished('TMP-2', 'tempo', { price_cents: 2_000_000 }),
    ]);
    await live.projector.catchUp();
  }

  /** A reader looking at the projections' positions now: none may be behind what it saw before. */
  async function look(when: string): Promise<void> {
    for (const [name, position] of await positionsSeen(shared)) {
      if (position < (seen.get(name) ?? 0)) wentBack.push(`${when}: ${name} from ${seen.get(name)} to ${position}`);
      seen.set(name, Math.max(position, seen.get(name) ?? 0));
    }
  }

  afterEach(async () => {
    await live?.close();
    await eventStore?.close();
  });

  /**
   * Runs a rebuild of `projections` through `rebuilder`. `atFence` runs once the new generation is built, just before
   * the rebuild takes the first lease; `onStep(k)` after the k-th call that changes the store from then on (taking
   * the leases, catching up under them, the switch, releasing, dropping the old generation). A reader looks after
   * each step. Answers how many steps there were.
   */
  /**
   * The live worker's catch-up once the rebuild stopped renewing its leases: it judges a lease by its own watch
   * (lease-watch.ts), so it finds it held, then sees it unchanged past a lease (a lease let go it takes at once).
   */
  async function liveTakesOver(): Promise<void> {
    const held = live.projector.counters().leaseHeld;
    let ended = false;
    const run = live.projector.catchUp().finally(() => { ended = true; });
    await until('the live worker found the lease held, or ran', () => ended || live.projector.counters().leaseHeld > held);
    clock.advance(DEFAULT_LEASE_TTL_MS + 1);
    await run;
  }

  async function rebuildWithSteps(
    projections: readonly Projection[], atFence: () => Promise<void>, onStep: (step: number) => Promise<void> = async () => {},
    beforeSwitch: () => Promise<void> = async () => {},
  ): Promise<number> {
    let fenced = false;
    let steps = 0;
    rebuilder.intercept({
      method: 'setControl', when: (call) => !fenced && takingLease(call),
      run: async () => {
        fenced = true;
        await atFence();
      },
    });
    rebuilder.intercept({
      method: /.*/, stage: 'after', when: (call) => fenced && !isRead(call),
      run: async () => {
        steps += 1;
        await look(`after step ${steps}`);
        await onStep(steps);
      },
    });
    await look('before the rebuild');
    await rebuild({ eventStore, readStore: rebuilder.store, projections, clock, beforeSwitch });
    return steps;
  }

  async function expectCleanRebuild(projections: readonly Projection[], what: string): Promise<void> {
    await look('at the end');
    expect(wentBack, `${what}: positions readers saw go back`).to.deep.equal([]);
    expect(await readersView(shared), what).to.deep.equal(await cleanRebuildView(eventStore, projections));
  }

  it('a live job that applied an event to the old generation and goes on after the switch loses nothing', async () => {
    await setUp([watchesProjection]);
    const paused = gate();
    let liveRun: Promise<void> | undefined;
    await rebuildWithSteps([watchesProjection], async () => {
      // Appended after the rebuild read the history: the live job applies them to the old generation, one per batch.
      await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000), watchStockChanged('TMP-1', 'low_stock')]);
      live.control.intercept({ method: 'setControl', when: checkpointAt(4), stage: 'after', times: 1, run: paused.pass });
      liveRun = live.projector.catchUp();
      await within(paused.reached, STEP_MS, 'the live job applying event 4');
    });
    paused.open();
    await within(liveRun!, STEP_MS, 'the live job after the switch');
    await live.projector.catchUp();
    await expectCleanRebuild([watchesProjection], 'a live job across the switch');
  });

  /**
   * The live model is ahead of the rebuilt one when the rebuild fences (event 4 only in the old generation); a live
   * job started after step `at` reads its checkpoint, applies event 5 and is held just before writing documents
   * until step `at + 1` (or the end), so its put lands between two steps.
   */
  async function liveJobAtStep(at: number): Promise<number> {
    await setUp([watchesProjection]);
    const paused = gate();
    let liveRun: Promise<void> | undefined;
    rebuilder.splitWrites(true);
    const steps = await rebuildWithSteps([watchesProjection], async () => {
      await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
      await live.projector.catchUp();
      await appendAll(eventStore, [watchPriceChanged('TMP-2', 2_100_000, 2_000_000)]);
    }, async (step) => {
      if (step === at + 1) paused.open();
      if (step !== at) return;
      live.control.intercept({ method: /.*/, when: documentsWrite, times: 1, run: paused.pass });
      const held = live.projector.counters().leaseHeld;
      liveRun = live.projector.catchUp();
      // The job reaches its write, ends, or waits for the lease the rebuild holds (then it goes on after it).
      const waiting = (async () => { while (live.projector.counters().leaseHeld === held) await sleep(1); })();
      await within(Promise.race([paused.reached, liveRun, waiting]), STEP_MS, `the live job started at step ${at}`);
    });
    paused.open();
    if (liveRun) await within(liveRun, STEP_MS, 'the live job');
    await live.projector.catchUp();
    await expectCleanRebuild([watchesProjection], `live job started at step ${at} of ${steps}`);
    return steps;
  }

  it('a live job starting at any step of the rebuild\'s end, its put landing before the next step, loses nothing', async () => {
    const steps = await liveJobAtStep(1);
    expect(steps, 'steps from the fence on').to.be.at.least(2);
    for (let at = 2; at <= steps; at++) {
      await live.close();
      await eventStore.close();
      await liveJobAtStep(at);
    }
    console.log(`      a live job started at each of the rebuild's ${steps} steps from the fence on, in turn`);
  });

  it('a rebuild that crashes after any step of its end leaves read models that the live workers bring to a clean rebuild', async () => {
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
      // The dead rebuild's leases expire; the live worker takes the projection over.
      await appendAll(eventStore, [watchStockChanged('TMP-2', 'low_stock')]);
      await liveTakesOver();
      await expectCleanRebuild([watchesProjection], `crash after step ${at ?? 'none'}`);
      return steps;
    };
    const steps = await crashAfter(undefined);
    expect(steps, 'steps from the fence on').to.be.at.least(2);
    for (let at = 1; at <= steps; at++) {
      await live.close();
      await eventStore.close();
      expect(await crashAfter(at), `the rebuild crashed at step ${at}`).to.equal(at);
    }
    console.log(`      the rebuild crashed after each of its ${steps} steps from the fence on, in turn`);
  });

  it('readers looking after any step of the switch see the old generation or the new one, never a mix', async () => {
    await setUp(PROJECTIONS);
    await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
    const old = await readersView(shared);
    const rebuilt = await cleanRebuildView(eventStore);
    expect(old, 'the two generations differ').to.not.deep.equal(rebuilt);
    const views: unknown[] = [];
    rebuilder.splitWrites(true);
    const steps = await rebuildWithSteps(PROJECTIONS, async () => {}, async () => {
      views.push(await readersView(shared));
    });
    expect(steps).to.be.at.least(1);
    views.forEach((view, index) => expect([old, rebuilt], `readers' view after step ${index + 1} of ${steps}`).to.deep.include(view));
    expect(views.at(-1)).to.deep.equal(rebuilt);
  });

  it('a rebuild paused past its lease just before its switch neither loses what a live worker applied meanwhile nor moves readers back', async () => {
    await setUp([watchesProjection]);
    await rebuildWithSteps([watchesProjection], async () => {}, async () => {}, async () => {
      // The rebuild's process stalls past its leases; the live worker takes the projection back and goes on.
      await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
      await liveTakesOver();
      await look('the live worker went on');
    }).catch(() => undefined);
    await live.projector.catchUp();
    await expectCleanRebuild([watchesProjection], 'a rebuild paused past its lease');
  });

  it('a rebuild paused after its last lease check, just before its switch, is refused the switch once a live worker took over, and readers never go back', async () => {
    await setUp([watchesProjection]);
    let paused = false;
    // The switch's pointer write, its pointer read done: the rebuild stalls past its leases right there.
    rebuilder.intercept({
      method: 'setControl', times: 1, when: (call) => controlDoc(call)?._id === GENERATIONS_ID && Object.keys(controlDoc(call)?.['live'] ?? {}).length > 0,
      run: async () => {
        paused = true;
        await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_100_000, 1_000_000)]);
        await liveTakesOver();
        await look('the live worker took over and went on');
      },
    });
    await rebuildWithSteps([watchesProjection], async () => {});
    expect(paused, 'the rebuild was paused at its switch').to.equal(true);
    await live.projector.catchUp();
    await expectCleanRebuild([watchesProjection], 'a rebuild paused between its last lease check and its switch');
  });
});
