/**
 * A request waiting for its `X-Min-Position` is woken by the projectors' word (issue 44, item 2; docs/api.md, "Read
 * your writes"): the refresh a replica makes on the word serves it, and its own reads of the store only cover a word
 * lost (read-model-clock.ts, `waitingPollMs`). Without the word it reads the store itself every 10 ms, as before.
 * Over a memory store whose reads this test counts, and whose checkpoint only this test moves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { StoredDoc } from '../../shared/ports/read-store.ts';
import { newCheckpoint } from '../../shared/read-model/projections/control-docs.ts';
import { readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, type ReadingEnv } from '../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { verifyOperation } from '../../shared/read-model/public-api/operations/verify.operation.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';

/** What the registry holds for a serial. */
const { fresh: _needsFresh, ...verifyWithoutBound } = verifyOperation;
const registry: PublicOperation = {
  ...verifyWithoutBound,
  async handle(request, { readStore }) {
    return ok((await readStore.get<{ status: string } & StoredDoc>('serials', request.path['serial'] as string))?.status);
  },
};
const request = (minPosition: number) => ({ query: {}, path: { serial: 'AUR-0001' }, header: { 'x-min-position': minPosition }, body: undefined });

describe('X-Min-Position woken by the projectors\' word (issue 44, item 2)', () => {
  let store: ReturnType<typeof createMemoryReadStore>;
  let reads: number;
  let clock: PolledReadModelClock | undefined;

  async function projectedAt(status: string, position: number): Promise<void> {
    const serial: StoredDoc & { status: string } = { _id: 'AUR-0001', status, position };
    await store.write('serials', [{ put: serial }]);
    await store.setControl({ ...newCheckpoint('serials', 1, 1, position), confirmed: { head: position, at: new Date(position).toISOString() } }, {}, true);
  }

  /** The answer of a request for `minPosition` (its status and body) and how long it took, over a clock with `waitingPollMs`. */
  async function startAnswering(waitingPollMs?: number) {
    clock = await startReadModelClock(async () => {
      reads += 1;
      return readSnapshotStates(store);
    }, { intervalMs: 3_600_000, ...(waitingPollMs === undefined ? {} : { waitingPollMs: () => waitingPollMs }) });
    const env = { clock, config: loadConfig({ MIN_POSITION_WAIT_MS: '3000' }) } as Partial<ReadingEnv> as ReadingEnv;
    return async (minPosition: number) => {
      const started = performance.now();
      const { answer } = await answerInSnapshot(env)(registry, request(minPosition));
      return { status: answer.status, body: answer.body, ms: performance.now() - started };
    };
  }

  beforeEach(async () => {
    store = createMemoryReadStore();
    reads = 0;
    await projectedAt('authentic', 10);
  });
  afterEach(() => clock?.stop());

  it('while the word is heard, a waiting request reads nothing itself and is answered on the refresh the word makes', async () => {
    const answer = await startAnswering(60_000);
    const waiting = answer(11);
    await sleep(300);
    const readsWhileWaiting = reads;
    await projectedAt('stolen', 11);
    await clock!.refresh({ projection: 'serials', generation: 1, position: 11 });
    const answered = await waiting;
    expect(answered.status).to.equal(200);
    expect(answered.body, 'read from the read model at the position asked for').to.equal('stolen');
    // The clock's first read and the request's first reading: nothing more in 300 ms of waiting (before: one every 10 ms).
    expect(readsWhileWaiting, 'store reads while waiting').to.be.at.most(2);
    expect(answered.ms, 'answered on the refresh, not at its own poll 60 s later').to.be.below(3_000);
  });

  it('while the word is heard, a word lost costs a waiting request its own read waitingPollMs later, not a refusal', async () => {
    const answer = await startAnswering(200);
    const waiting = answer(11);
    await sleep(50);
    await projectedAt('stolen', 11);
    const answered = await waiting;
    expect(answered.status).to.equal(200);
    expect(answered.body).to.equal('stolen');
    expect(answered.ms, 'its own read after about 200 ms').to.be.within(150, 2_000);
  });

  it('without the word, a waiting request reads the store itself every 10 ms, as before', async () => {
    const answer = await startAnswering();
    const waiting = answer(11);
    await sleep(200);
    const readsWhileWaiting = reads;
    await projectedAt('stolen', 11);
    const answered = await waiting;
    expect(answered.body).to.equal('stolen');
    expect(readsWhileWaiting, 'store reads in 200 ms of waiting').to.be.at.least(5);
  });
});
