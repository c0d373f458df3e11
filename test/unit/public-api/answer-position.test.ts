/**
 * The position an answer says (`X-Read-Model-Position`) against where its data stands (docs/api.md: "a verification
 * whose serial's document is already past the checkpoint says that document's position (and is not kept)"): a
 * projector writes a batch's documents before its checkpoint, so an operation may read a document past its reading's
 * stamp. Read at or before the stamp, the answer says the stamp and may be kept; read past it, the answer says the
 * document's position and is given once.
 */
import { expect } from 'chai';
import type { ReadView } from '../../../shared/ports/read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';

/** The serials read model, checkpointed at 7. */
const STAMP = 7;
const serials: ProjectionState = { name: 'serials', generation: 1, position: STAMP, status: 'running', parked: null, updated_at: null, confirmed: { head: STAMP, at: '2026-01-01T00:00:00.000Z' } };
const request = { query: { lang: 'en' }, path: {}, header: {} } as unknown as ValidRequest;
const empty: ReadView = { find: async () => [], count: async () => 0, getMany: async () => [], get: async () => null };

describe('the position an answer says, against where its data stands', () => {
  it('says the stamp, and may be kept, for data read at or before it; says the data\'s position, given once, for data read past it', async () => {
    const clock = await startReadModelClock(async () => ({ view: empty, states: [serials] }), { intervalMs: 60_000 });
    clock.stop();
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    const readAt = (dataAt: number): PublicOperation => ({
      spec: {} as PublicOperation['spec'], reads: ['serials'], cacheable: true,
      handle: async () => ({ ...ok({ read: dataAt }), dataAt }),
    });
    for (const [dataAt, position, once] of [[5, STAMP, undefined], [STAMP, STAMP, undefined], [STAMP + 1, STAMP + 1, true]] as const) {
      const given = await answer(readAt(dataAt), request);
      expect(given.answer.status, JSON.stringify(given.answer.body)).to.equal(200);
      expect(given.position, `data at ${dataAt}`).to.equal(position);
      expect(given.answer.once, `data at ${dataAt}: given once`).to.equal(once);
    }
  });
});
