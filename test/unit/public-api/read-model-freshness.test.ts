/**
 * Freshness as the read-model clock judges it (shared/read-model/public-api/read-model-clock.ts; issue 40, items 2 and 3), fed
 * projection states by hand with a fake monotonic clock. The rules, from docs/api.md's "Honest answers" as issue 40
 * states them: a read model is fresh while this process saw its confirmation change (another head or another `at`)
 * within the bound, on its own monotonic clock; the confirmation already there at its first poll does not count; a
 * change read by one poll counts from the start of the poll before it; no time another process wrote is compared
 * with this process's clock, so offsetting this process's wall clock changes nothing. Verification has its own bound
 * (5 s by default), the catalogue's status its own (30 s). Expected values are worked out here from those rules.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import { counting, verifying } from '../read-api/support/toy-operations.ts';

const WALL = Date.parse('2026-01-01T00:00:00.000Z');
/** A projection at `position` whose owner confirmed `head` at `at` (its own wall clock: any time at all). */
const confirmed = (name: string, position: number, at: number, head = position): ProjectionState => ({
  name, generation: 1, position, status: 'running', parked: null, updated_at: null,
  confirmed: { head, at: new Date(at).toISOString() },
});
const unconfirmed = (name: string, position: number): ProjectionState => ({ ...confirmed(name, position, 0), confirmed: null });

/** A clock over `states()`, polled only when the test says, on the fake monotonic time `now.ms`. */
async function clockOver(states: () => ProjectionState[], now: { ms: number }, bounds = {}) {
  const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states: states() }), {
    intervalMs: 60_000, monotonic: () => now.ms, ...bounds,
  });
  clock.stop();
  return clock;
}

/** Runs `body` with this process's wall clock (`Date.now()`, `new Date()`) offset by `offsetMs`, as the preload does. */
async function withWallOffset<T>(offsetMs: number, body: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  class OffsetDate extends RealDate {
    constructor(...args: []) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(...(args as []));
    }
    static override now() {
      return RealDate.now() + offsetMs;
    }
  }
  globalThis.Date = OffsetDate as DateConstructor;
  try {
    return await body();
  } finally {
    globalThis.Date = RealDate;
  }
}

const request = { query: { lang: 'en' }, path: {}, header: {} } as unknown as ValidRequest;

describe('read-model freshness: judged only on what this process saw happen, on its own monotonic clock', () => {
  it('counts the confirmation already there at the first poll as not seen: built, stale, lag unknown, until one happens', async () => {
    const now = { ms: 1_000 };
    // Confirmed "now" by the projector's clock: a restarted replica must not take that as fresh (defect 2 of issue 40).
    let states = [confirmed('serials', 7, WALL), confirmed('watches', 7, WALL)];
    const clock = await clockOver(() => states, now);
    expect(clock.projections()).to.deep.equal([
      { name: 'serials', position: 7, built: true, fresh: false, lag_seconds: null },
      { name: 'watches', position: 7, built: true, fresh: false, lag_seconds: null },
    ]);
    expect(clock.refusal(['serials'], true), 'a verification').to.equal('stale');
    expect(clock.refusal(['watches'], false), 'the catalogue: built is enough').to.equal(undefined);
    now.ms = 60_000;
    await clock.refresh();
    expect(clock.refusal(['serials'], true), 'the same confirmation read again, a minute on').to.equal('stale');
    // The same head confirmed again (another `at`): a confirmation happening, counted from the poll before (at 60 s).
    states = [confirmed('serials', 7, WALL + 1), confirmed('watches', 7, WALL)];
    now.ms = 60_400;
    await clock.refresh();
    expect(clock.refusal(['serials'], true)).to.equal(undefined);
    expect(clock.projections()[0]).to.deep.equal({ name: 'serials', position: 7, built: true, fresh: true, lag_seconds: 0.4 });
    expect(clock.projections()[1], 'watches, not confirmed again').to.include({ fresh: false, lag_seconds: null });
  });

  it('is fresh for the bound after a change it saw (5 s for a verification, 30 s for status), then stale; the catalogue is served all along', async () => {
    const now = { ms: 0 };
    let states = [confirmed('serials', 3, WALL), confirmed('watches', 3, WALL)];
    const clock = await clockOver(() => states, now, { maxLagMs: 30_000, freshAnswerMaxLagMs: 5_000 });
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    // A new head confirmed, read by the poll at 2 s: it happened after the first poll began, at 0.
    states = [confirmed('serials', 4, WALL), confirmed('watches', 4, WALL)];
    now.ms = 2_000;
    await clock.refresh();
    now.ms = 5_000;
    expect((await answer(verifying, request)).answer.status, 'seen 5 s ago').to.equal(200);
    now.ms = 5_001;
    expect((await answer(verifying, request)).answer).to.deep.equal({
      status: 503, body: { detail: 'The registry cannot be checked right now; try again shortly' }, retryAfter: 5,
    });
    expect((await answer(counting, request)).answer.status, 'the catalogue').to.equal(200);
    expect(clock.projections().map((p) => p.fresh), 'status: still fresh').to.deep.equal([true, true]);
    now.ms = 30_000;
    expect(clock.projections().map((p) => p.fresh)).to.deep.equal([true, true]);
    now.ms = 30_001;
    expect(clock.projections()).to.deep.equal([
      { name: 'serials', position: 4, built: true, fresh: false, lag_seconds: 30.001 },
      { name: 'watches', position: 4, built: true, fresh: false, lag_seconds: 30.001 },
    ]);
    expect((await answer(counting, request)).answer.status, 'the catalogue, degraded').to.equal(200);
  });

  it('says a verification\'s data age in whole seconds rounded up, counted from the poll before the one that saw the change', async () => {
    const now = { ms: 10_000 };
    let states = [confirmed('serials', 3, WALL)];
    const clock = await clockOver(() => states, now);
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    now.ms = 11_000;
    await clock.refresh();
    // Written between the poll at 11 s (which still read the old one) and the one at 11.8 s.
    states = [confirmed('serials', 3, WALL + 5)];
    now.ms = 11_800;
    await clock.refresh();
    now.ms = 12_000;
    expect((await answer(verifying, request)).dataAge, '1 s since 11 s').to.equal(1);
    now.ms = 12_001;
    expect((await answer(verifying, request)).dataAge, '1.001 s, rounded up').to.equal(2);
    expect(clock.dataAge(['serials']), 'as the clock says of the data served now').to.equal(2);
    expect((await answer(counting, request)).dataAge, 'only an operation that needs fresh read models says it').to.equal(undefined);
  });

  it('takes a checkpoint that first appears after the start, confirmed, as seen happen', async () => {
    const now = { ms: 0 };
    let states = [unconfirmed('serials', 0)];
    const clock = await clockOver(() => states, now);
    expect(clock.refusal(['serials'], false), 'never confirmed: not built').to.equal('unbuilt');
    states = [confirmed('serials', 2, WALL)];
    now.ms = 1_000;
    await clock.refresh();
    expect(clock.refusal(['serials'], true)).to.equal(undefined);
    expect(clock.projections()[0]).to.include({ built: true, fresh: true, lag_seconds: 1 });
  });

  it('does not take the confirmation a generation switch makes live as seen happen: refused until its owner confirms again there', async () => {
    const now = { ms: 0 };
    const inGeneration = (generation: number, state: ProjectionState): ProjectionState => ({ ...state, generation });
    let states = [confirmed('serials', 7, WALL)];
    const clock = await clockOver(() => states, now);
    states = [confirmed('serials', 8, WALL + 1)];
    now.ms = 1_000;
    await clock.refresh();
    expect(clock.refusal(['serials'], true), 'seen happen in generation 1').to.equal(undefined);
    // A rebuild's generation 2 goes live: its checkpoint was confirmed when the rebuild read the head, which may be
    // long before its switch (its checks run in between), and nothing here can tell how long.
    states = [inGeneration(2, confirmed('serials', 9, WALL + 2))];
    now.ms = 2_000;
    await clock.refresh();
    expect(clock.refusal(['serials'], true), 'a verification').to.equal('stale');
    expect(clock.dataAge(['serials'])).to.equal(undefined);
    expect(clock.projections()).to.deep.equal([{ name: 'serials', position: 9, built: true, fresh: false, lag_seconds: null }]);
    expect(clock.refusal(['serials'], false), 'the catalogue: built is enough').to.equal(undefined);
    // Its owner confirms again in generation 2: counted from the poll before, at 2 s.
    states = [inGeneration(2, confirmed('serials', 9, WALL + 3))];
    now.ms = 2_600;
    await clock.refresh();
    expect(clock.refusal(['serials'], true)).to.equal(undefined);
    expect(clock.projections()[0]).to.include({ fresh: true, lag_seconds: 0.6 });
  });

  it('takes a projection whose checkpoint the store holds no more as not built at once, its served position kept, no answer kept from before', async () => {
    const now = { ms: 0 };
    let states = [confirmed('serials', 7, WALL), confirmed('watches', 7, WALL)];
    const clock = await clockOver(() => states, now);
    states = [confirmed('serials', 8, WALL + 1), confirmed('watches', 8, WALL + 1)];
    now.ms = 1_000;
    await clock.refresh();
    const view = clock.view(['serials']);
    expect(clock.refusal(['serials'], true), 'seen confirmed: fresh').to.equal(undefined);
    // The read store emptied of the serials model (or put back from a copy made before it was built).
    states = [confirmed('watches', 8, WALL + 1)];
    now.ms = 1_100;
    await clock.refresh();
    expect(clock.refusal(['serials'], true), 'a verification, well within its bound').to.equal('unbuilt');
    expect(clock.refusal(['serials'], false), 'any answer reading it').to.equal('unbuilt');
    expect(clock.refusal(['watches'], true), 'the others as they were').to.equal(undefined);
    expect(clock.dataAge(['serials'])).to.equal(undefined);
    expect(view(), 'the store holds nothing of it, and what was kept is not given').to.deep.equal({ key: '1.8', position: 8, behindAt: 0, unbuilt: true });
    expect(clock.projections()[0]).to.deep.equal({ name: 'serials', position: 8, built: false, fresh: false, lag_seconds: null });
    // Back with the confirmation it had: as fresh as it was, from when that one was seen happen (the poll at 0).
    states = [confirmed('serials', 8, WALL + 1), confirmed('watches', 8, WALL + 1)];
    now.ms = 1_200;
    await clock.refresh();
    expect(clock.projections()[0]).to.deep.equal({ name: 'serials', position: 8, built: true, fresh: true, lag_seconds: 1.2 });
    expect(view()).to.deep.equal({ key: '1.8', position: 8, behindAt: null });
  });

  it('knows a confirmation put back below one it saw, though the checkpoint was reset unconfirmed or gone between', async () => {
    for (const between of [[unconfirmed('serials', 8)], []]) {
      const now = { ms: 0 };
      let states = [confirmed('serials', 7, WALL)];
      const clock = await clockOver(() => states, now);
      states = [confirmed('serials', 8, WALL + 1)];
      now.ms = 1_000;
      await clock.refresh();
      states = between;
      now.ms = 2_000;
      await clock.refresh();
      expect(clock.refusal(['serials'], true), `${between.length} state between`).to.equal('unbuilt');
      // A copy put back: confirmed at a head below 8, at a time never read here.
      states = [confirmed('serials', 8, WALL - 60_000, 6)];
      now.ms = 3_000;
      await clock.refresh();
      expect(clock.refusal(['serials'], true), `${between.length} state between: the copy's confirmation did not happen now`).to.equal('stale');
      states = [confirmed('serials', 8, WALL + 2)];
      now.ms = 4_000;
      await clock.refresh();
      expect(clock.refusal(['serials'], true), 'its owner confirms again').to.equal(undefined);
    }
  });

  it('counts a confirmation\'s age from its owner\'s head read: the poll before, less the age the owner wrote with it', async () => {
    const now = { ms: 10_000 };
    const aged = (state: ProjectionState, ageMs: number): ProjectionState => ({ ...state, confirmed: { ...state.confirmed!, age_ms: ageMs } });
    let states = [confirmed('serials', 3, WALL)];
    const clock = await clockOver(() => states, now);
    // Written after the poll at 10 s; its owner had read the head 3.5 s before writing it (a slow batch, a pause).
    states = [aged(confirmed('serials', 4, WALL + 1), 3_500)];
    now.ms = 10_500;
    await clock.refresh();
    expect(clock.dataAge(['serials']), '0.5 s since the poll before, and 3.5 s before it').to.equal(4);
    expect(clock.projections()[0]).to.include({ fresh: true, lag_seconds: 4 });
    now.ms = 11_500;
    expect(clock.refusal(['serials'], true), 'read 5 s ago').to.equal(undefined);
    now.ms = 11_501;
    expect(clock.refusal(['serials'], true), 'read more than 5 s ago: stale, though seen 1 s ago').to.equal('stale');
    // An age that is no duration (written by hand, garbled) is not trusted: the confirmation is not seen happen.
    for (const age of [-1, Number.NaN]) {
      states = [aged(confirmed('serials', 4, WALL + 2 + Math.abs(age || 7)), age)];
      now.ms += 100;
      await clock.refresh();
      expect(clock.projections()[0], String(age)).to.include({ fresh: false, lag_seconds: null });
    }
  });

  it('answers the same whatever this process\'s wall clock says (offset by -150 s, 0, +150 s) and whatever times the projectors wrote', async () => {
    // Confirmation times as projectors with clocks far ahead, far behind and stuck would write them.
    const written = [WALL + 3_600_000, WALL - 3_600_000, WALL, WALL, WALL + 150_000];
    const run = async () => {
      const now = { ms: 0 };
      let step = 0;
      const clock = await clockOver(() => [confirmed('serials', 5 + step, written[step]!)], now);
      const seen: unknown[] = [];
      for (step = 1; step < written.length; step += 1) {
        now.ms += 2_500;
        await clock.refresh();
        for (const at of [0, 2_500, 2_501]) {
          const asked = now.ms + at;
          const monotonic = now.ms;
          now.ms = asked;
          seen.push([clock.refusal(['serials'], true), clock.projections(), clock.dataAge(['serials'])]);
          now.ms = monotonic;
        }
      }
      return seen;
    };
    const straight = await run();
    expect(await withWallOffset(-150_000, run), 'wall clock 150 s behind').to.deep.equal(straight);
    expect(await withWallOffset(150_000, run), 'wall clock 150 s ahead').to.deep.equal(straight);
    // Each confirmation differs from the one before (another head) and is read 2.5 s after the poll before, which it
    // counts from: fresh for a verification when read and 2.5 s on (5 s), not 2.501 s on.
    expect(straight.map((entry) => (entry as unknown[])[0])).to.deep.equal(
      Array.from({ length: written.length - 1 }, () => [undefined, undefined, 'stale']).flat(),
    );
    expect(straight.map((entry) => (entry as unknown[])[2])).to.deep.equal(
      Array.from({ length: written.length - 1 }, () => [3, 5, 6]).flat(),
    );
  });
});
