/**
 * One wait per request asking `X-Min-Position` (docs/api.md, "Read your writes": up to `MIN_POSITION_WAIT_MS`): a
 * snapshot that expires under its read (a rebuild's switch) is read again, and the wait goes on to the same
 * deadline, never a new one. Judged on the deadlines the request asks the clock to wait to, not on elapsed time: the
 * order of the steps is the same on a loaded machine.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { SnapshotExpiredError, type ReadView } from '../../../shared/ports/read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import { counting } from '../read-api/support/toy-operations.ts';

const WAIT_MS = 400;
const watches = (generation: number, position: number): ProjectionState => ({
  name: 'watches', generation, position, status: 'running', parked: null, updated_at: null,
  confirmed: { head: position, at: '2026-01-01T00:00:01.000Z' },
});
/** Reads that expire after a while, as a snapshot of a generation a rebuild dropped. */
const expiring = (): ReadView => {
  const fail = async () => {
    await sleep(50);
    throw new SnapshotExpiredError(600);
  };
  return { find: fail, count: fail, get: fail, getMany: fail } as unknown as ReadView;
};

describe('X-Min-Position: one wait per request', () => {
  it('reads again after a snapshot expired, waiting to the request\'s one deadline, not to a new one', async () => {
    // At 100 first, then reached (100) in a generation whose reads expire, then a switch to one still behind (90).
    const steps = [{ view: createMemoryReadStore(), states: [watches(1, 99)] }, { view: expiring(), states: [watches(1, 100)] }];
    const after = { view: createMemoryReadStore(), states: [watches(2, 90)] };
    const polled = await startReadModelClock(async () => steps.shift() ?? after, { intervalMs: 60_000 });
    polled.stop();
    const waitedTo: number[] = [];
    const clock: PolledReadModelClock = Object.create(polled, {
      nextReading: { value: (maxMs: number) => { waitedTo.push(performance.now() + maxMs); return polled.nextReading(Math.min(maxMs, 20)); } },
    });
    const answer = answerInSnapshot({ clock, config: { MIN_POSITION_WAIT_MS: WAIT_MS } } as unknown as ReadingEnv);
    const start = performance.now();
    const result = await answer(counting, { query: {}, path: {}, header: { 'x-min-position': 100 } } as unknown as ValidRequest);
    expect(result.answer.status, 'refused: the generation read again stands behind').to.equal(503);
    expect(waitedTo.length, 'waited for a reading').to.be.above(0);
    for (const end of waitedTo) expect(end, 'a wait past the request\'s deadline').to.be.at.most(start + WAIT_MS + 1);
  });
});
