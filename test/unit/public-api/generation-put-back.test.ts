/**
 * A read store put back from a copy made before a rebuild: its generation pointer names an older generation than the
 * one this process served, and the copy's projector brings it past what was served (docs/api.md, "Stores put back
 * from a copy"). What was served never goes back in position; the older generation is taken once past it, so a
 * request asking `X-Min-Position` past the old position is answered, and no answer kept from the newer generation
 * is given again once the copy is taken (before, was served stays served, as after a rebuild's switch still behind).
 * The clock is fed projection states by hand, on a fake monotonic clock.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { operationPolicy, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import { verifying } from '../read-api/support/toy-operations.ts';

const WALL = Date.parse('2026-01-01T00:00:00.000Z');
let confirmations = 0;
/** The serials at `position` in `generation`, its head confirmed anew (another `at` each time). */
const serials = (generation: number, position: number): ProjectionState => ({
  name: 'serials', generation, position, status: 'running', parked: null, updated_at: null,
  confirmed: { head: position, at: new Date(WALL + (confirmations += 1)).toISOString() },
});
const asking = (minPosition?: number) => ({ query: { lang: 'en' }, path: {}, header: minPosition === undefined ? {} : { 'x-min-position': minPosition } }) as unknown as ValidRequest;

describe('a read store put back from a copy made before a rebuild (an older generation)', () => {
  it('takes the older generation once past what was served: no kept answer of the newer one after, and a position past the old one answered', async () => {
    const now = { ms: 0 };
    let states = [serials(2, 100)];
    const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states }), { intervalMs: 60_000, monotonic: () => now.ms });
    clock.stop();
    const see = async (next: ProjectionState) => {
      states = [next];
      now.ms += 100;
      await clock.refresh();
    };
    await see(serials(2, 100));
    // Kept as the verification is, its time renewed when given again (timeField).
    const policy = operationPolicy({ clock, config: { MIN_POSITION_WAIT_MS: 300 } } as unknown as ReadingEnv, { ...verifying, timeField: 'checked_at' });
    const first = await policy.answer(asking());
    expect(first.stamp).to.deep.include({ key: '2.100', behindAt: null });
    const kept = policy.keep(first.stamp, true)!;
    expect(policy.serving(kept), 'kept and fresh').to.not.equal(undefined);

    // The copy: generation 1 at 50, behind what was served, which stays served (the kept answer is the newer data).
    await see(serials(1, 50));
    expect(clock.current(), 'never back').to.equal(100);
    await see(serials(1, 160));
    await see(serials(1, 170));
    expect(clock.current(), 'taken once past what was served').to.equal(170);
    expect(policy.serving(kept), 'read from generation 2 at 100: never given again').to.equal(undefined);
    const asked = await policy.answer(asking(150));
    expect(asked.answer.status, 'X-Min-Position past the old position').to.equal(200);
    expect(asked.stamp).to.deep.include({ key: '1.170', position: 170, behindAt: null });
  });
});
