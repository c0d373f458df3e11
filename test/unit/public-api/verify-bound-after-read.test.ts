/**
 * The verification's bound (`freshAnswerMaxLagMs`, VERIFY_MAX_LAG_SECONDS) holds for the answer given, not only for the
 * moment its reading was judged: a read that takes long (a slow store, a busy process) must not turn an answer judged
 * 4.5 s old into one given 7.5 s after the registry was last seen confirmed, an AUTHENTIC saying `X-Data-Age: 8`
 * past a bound of 5 (docs/api.md: "refused (503) rather than given from data older than the verification's bound").
 */
import { expect } from 'chai';
import type { ReadView } from '../../../shared/ports/read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';

const confirmation = (n: number) => ({ head: 7, at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() });
const serials = (n: number): ProjectionState => ({
  name: 'serials', generation: 1, position: 7, status: 'running', parked: null, updated_at: null, confirmed: confirmation(n),
});
const request = { query: { lang: 'en' }, path: {}, header: {} } as unknown as ValidRequest;

describe('the verification\'s bound, for the answer given', function () {
  it('does not give a verification whose data, by the time it was read, is older than the bound', async function () {
    let now = 0;
    let confirmed = 1;
    /** A read of the registry that takes 3 s of this process's time. */
    const slow: ReadView = {
      find: async () => [], count: async () => 0, getMany: async () => [],
      get: async () => { now += 3_000; return null; },
    };
    const clock = await startReadModelClock(async () => ({ view: slow, states: [serials(confirmed)] }), {
      intervalMs: 60_000, freshAnswerMaxLagMs: 5_000, monotonic: () => now,
    });
    clock.stop();
    // Confirmed again after the start, seen by a poll at 1 s: seen happen since 0 (the poll before).
    confirmed = 2;
    now = 1_000;
    await clock.refresh();
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    const verifying: PublicOperation = {
      spec: {} as PublicOperation['spec'], reads: ['serials'], fresh: true, cacheable: false,
      async handle(_request, { readStore }) {
        return ok({ verification_status: (await readStore.get('serials', 'AUR-1')) === null ? 'NOT_FOUND' : 'AUTHENTIC' });
      },
    };
    // 4.5 s since the confirmation was seen happen: within the bound when judged, 7.5 s once read.
    now = 4_500;
    await clock.refresh();
    const given = await answer(verifying, request);
    if (given.answer.status === 200) {
      expect(given.dataAge, `NOT_FOUND given with X-Data-Age ${given.dataAge} past the bound of 5 s`).to.be.at.most(5);
    } else {
      expect(given.answer.status).to.equal(503);
    }
  });
});
