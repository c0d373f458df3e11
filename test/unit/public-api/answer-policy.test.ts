/**
 * The one decision every answer goes through (shared/read-model/public-api/answer-policy.ts): an answer is read from one reading of the
 * store and stamped from that same reading; one whose snapshot expired while it read is answered again from a new
 * reading, once; and it is refused (503, `Retry-After`) when a read model it needs was never built, when a
 * verification's read model is not fresh, and when the store cannot be read. Expected answers are the contract's
 * ("Honest answers"), written out here.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { GENERATIONS_ID, ReadStoreUnavailableError, SnapshotExpiredError, type ReadView, type StoredDoc } from '../../../shared/ports/read-store.ts';
import { newCheckpoint } from '../../../shared/read-model/projections/control-docs.ts';
import { readSnapshotStates } from '../../../shared/read-model/projections/projection-states.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { answerInSnapshot, operationPolicy, type ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';
import { ok, type PublicOperation } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { startReadModelClock, type PolledReadModelClock, type StoreReading } from '../../../shared/read-model/public-api/read-model-clock.ts';
import type { ValidRequest } from '../../../shared/read-model/public-api/validation/request-validator.ts';
import { confirmAgain } from '../../support/confirm-again.ts';
import { controlledReadStore } from '../../support/controlled-read-store.ts';
import { counting, verifying } from '../read-api/support/toy-operations.ts';


const expired: ReadView = {
  find: () => Promise.reject(new SnapshotExpiredError(600)),
  count: () => Promise.reject(new SnapshotExpiredError(600)),
  get: () => Promise.reject(new SnapshotExpiredError(600)),
  getMany: () => Promise.reject(new SnapshotExpiredError(600)),
};

/** A confirmation of head 7, the `n`th its owner wrote (its time is only a marker to this process). */
const confirmation = (n: number) => ({ head: 7, at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() });
const state = (name: string, position: number, confirmed: ProjectionState['confirmed']): ProjectionState => ({
  name, generation: 1, position, status: 'running', parked: null, updated_at: null, confirmed,
});

interface Harness {
  clock: PolledReadModelClock;
  /** The fake monotonic time, in ms. */
  now: number;
  answer: ReturnType<typeof answerInSnapshot>;
  readings: number;
  /** What the next readings give: a view and states, or a failure. */
  next: (reading: number) => StoreReading | Error;
}

async function harness(next: Harness['next']): Promise<Harness> {
  const h = { readings: 0, next, now: 0 } as Harness;
  h.clock = await startReadModelClock(async () => {
    const given = h.next(++h.readings);
    if (given instanceof Error) throw given;
    return given;
  }, { intervalMs: 60_000, maxLagMs: 30_000, freshAnswerMaxLagMs: 5_000, monotonic: () => h.now });
  h.clock.stop();
  h.answer = answerInSnapshot({ clock: h.clock } as Partial<ReadingEnv> as ReadingEnv);
  return h;
}

const request = { query: { lang: 'fr' }, path: {}, header: {} } as unknown as ValidRequest;
const refusal = (detail: string) => ({ status: 503, body: { detail }, retryAfter: 5 });

describe('answers from one reading, or refused', function () {
  it('answers a request whose snapshot expired from a new reading, stamped from that reading', async function () {
    const store = createMemoryReadStore();
    await store.write('watches', [{ put: { _id: 'a', position: 1 } }, { put: { _id: 'b', position: 1 } }]);
    const h = await harness((n) => ({ view: n === 1 ? expired : store, states: [state('watches', n * 10, confirmation(1))] }));
    const { answer, stamp } = await h.answer(counting, request);
    expect(answer).to.deep.equal({ status: 200, body: { total: 2 } });
    expect(h.readings, 'the reading of the start, which the request used first, then a new one').to.equal(2);
    expect(stamp?.position, 'the stamp of the reading the answer came from').to.equal(20);
  });

  it('gives up after the second expired snapshot: the failure is the store\'s, as a slow store\'s is', async function () {
    const h = await harness(() => ({ view: expired, states: [state('watches', 5, confirmation(1))] }));
    await h.clock.refresh();
    const failure = await h.answer(counting, request).then(() => undefined, (error: unknown) => error);
    expect(failure).to.be.instanceOf(SnapshotExpiredError);
  });

  // Issue 40 changed this rule: no confirmation seen happen within 5 s, not a confirmation written over 30 s before.
  it('refuses an operation whose read model was never built, and a verification from a model not seen confirmed within its bound', async function () {
    let states = [state('watches', 5, null), state('serials', 5, confirmation(1))];
    const store = createMemoryReadStore();
    const h = await harness(() => ({ view: store, states }));
    // A confirmation there at the start was not seen happen.
    expect(await h.answer(counting, request)).to.deep.equal({
      answer: refusal('Le catalogue est en cours de préparation ; réessayez dans un instant'), stamp: undefined,
    });
    expect(await h.answer(verifying, request)).to.deep.equal({
      answer: refusal('Le registre ne peut pas être consulté pour le moment ; réessayez dans un instant'), stamp: undefined,
    });
    // Confirmed again, read by a poll 4 s after the first: seen 4 s ago, then 5 s (the bound), answered.
    states = [state('watches', 5, confirmation(1)), state('serials', 5, confirmation(2))];
    h.now = 4_000;
    await h.clock.refresh();
    expect((await h.answer(verifying, request)).answer.status).to.equal(200);
    h.now = 5_000;
    expect((await h.answer(verifying, request)).answer.status).to.equal(200);
    expect((await h.answer(counting, request)).answer.status, 'built but not fresh: served all the same').to.equal(200);
    h.now = 5_001;
    expect((await h.answer(verifying, request)).answer.status, 'past the bound').to.equal(503);
  });

  it('refuses a verification whose read model was never confirmed, even when its checkpoint exists, with the registry\'s refusal', async function () {
    const h = await harness(() => ({ view: createMemoryReadStore(), states: [state('serials', 9, null), state('watches', 9, null)] }));
    const english = { query: { lang: 'en' }, path: {}, header: {} } as unknown as ValidRequest;
    expect((await h.answer(verifying, english)).answer).to.deep.equal(refusal('The registry cannot be checked right now; try again shortly'));
    expect((await h.answer(counting, english)).answer).to.deep.equal(refusal('The catalogue is being prepared; try again shortly'));
  });

  it('refuses in English a request that names no language (the contract\'s default)', async function () {
    const h = await harness(() => ({ view: createMemoryReadStore(), states: [state('serials', 9, null), state('watches', 9, null)] }));
    const noLanguage = { query: {}, path: {}, header: {} } as unknown as ValidRequest;
    expect((await h.answer(counting, noLanguage)).answer).to.deep.equal(refusal('The catalogue is being prepared; try again shortly'));
  });

  it('refuses with 503, not an error, when the store cannot be read', async function () {
    const store = createMemoryReadStore();
    let reachable = true;
    const h = await harness(() => (reachable ? { view: store, states: [state('watches', 5, confirmation(1)), state('serials', 5, confirmation(1))] }
      : new Error('connect ECONNREFUSED')));
    reachable = false;
    // The reading of the start is too old to reuse (its monotonic time is 0, and so is now: renew it by hand).
    const failing = await h.clock.refresh().then(() => undefined, (error: unknown) => error);
    expect(failing).to.be.instanceOf(ReadStoreUnavailableError);
    const unreachableView: ReadView = { ...store, count: () => Promise.reject(new ReadStoreUnavailableError(new Error('reset'))) };
    h.next = () => ({ view: unreachableView, states: [state('watches', 5, confirmation(1))] });
    await h.clock.refresh();
    expect((await h.answer(counting, request)).answer).to.deep.equal(refusal('Le catalogue ne peut pas être lu pour le moment ; réessayez dans un instant'));
    expect((await h.answer(verifying, request)).answer).to.deep.equal(refusal('Le registre ne peut pas être consulté pour le moment ; réessayez dans un instant'));
  });

  it('gives again an answer kept at the position an answer of its models was read ahead at, and none kept below it', async function () {
    const store = createMemoryReadStore();
    const serial = (status: string, position: number) => ({ _id: 'AUR-1', serial: 'AUR-1', status, position });
    const checkpointAt = (position: number, n: number) => ({
      ...newCheckpoint('serials', 1, 1, position), confirmed: { ...confirmation(n), head: position },
    });
    await store.write('serials', [{ put: serial('authentic', 10) }]);
    await store.setControl(checkpointAt(10, 1), {}, true);
    const clock = await startReadModelClock(() => readSnapshotStates(store), { intervalMs: 60_000 });
    clock.stop();
    // Kept answers, the serial's status read with the position of its document (as the verification reads it).
    const status: PublicOperation = {
      ...counting,
      reads: ['serials'],
      async handle(_request, { readStore }) {
        const doc = await readStore.get<{ status: string; position: number } & StoredDoc>('serials', 'AUR-1');
        return { ...ok(doc?.status), dataAt: doc?.position };
      },
    };
    const policy = operationPolicy({ clock } as Partial<ReadingEnv> as ReadingEnv, status);
    const before = await policy.answer(request);
    const keptBefore = policy.keep(before.stamp, true);
    expect(keptBefore, 'read at its stamp: kept').to.not.equal(undefined);
    // The theft at 11, written by the serials projector before its checkpoint: answered at once from its document.
    await store.write('serials', [{ put: serial('stolen', 11) }]);
    const ahead = await policy.answer(request);
    expect(ahead).to.deep.include({ answer: { ...ok('stolen'), dataAt: 11, once: true }, position: 11 });
    expect(policy.serving(keptBefore!), 'the authentic of 10 after the stolen of 11').to.equal(undefined);
    // Its checkpoint at 11 seen: an answer read there holds the theft, no older than what was answered ahead.
    await store.setControl(checkpointAt(11, 2), {}, true);
    await clock.refresh();
    const at = await policy.answer(request);
    expect(at).to.deep.include({ answer: { ...ok('stolen'), dataAt: 11 }, position: 11 });
    expect(policy.serving(policy.keep(at.stamp, true)!)).to.deep.equal({ position: 11 });
  });

  it('stamps an answer from the reading its data came from, across a generation switch (never a newer stamp on older data)', async function () {
    const store = createMemoryReadStore();
    const serial = (status: string, position: number) => ({ _id: 'AUR-1', serial: 'AUR-1', status, position });
    const checkpointAt = (generation: number, position: number, n: number) => ({
      ...newCheckpoint('serials', generation, 1, position), confirmed: { ...confirmation(n), head: position },
    });
    await store.write('serials', [{ put: serial('authentic', 10) }]);
    await store.setControl(checkpointAt(1, 10, 1), {}, true);
    const clock = await startReadModelClock(() => readSnapshotStates(store), { intervalMs: 60_000 });
    clock.stop();
    // Confirmed again once this process runs, as a live projector does: the registry is fresh.
    await store.setControl(checkpointAt(1, 10, 2), {}, true);
    await clock.refresh();
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    // A rebuild's generation 2, where the theft at 12 is projected, goes live; this process has not polled since.
    await store.generation('serials', 2).write([{ put: serial('stolen', 12) }]);
    await store.setControl(checkpointAt(2, 12, 3), {}, true);
    await store.setControl({ _id: GENERATIONS_ID, version: 1, live: { serials: 2 }, reserved: 2 }, {}, true);
    const reading: PublicOperation = {
      ...verifying,
      async handle(_request, { readStore }) {
        return ok((await readStore.get<{ status: string } & StoredDoc>('serials', 'AUR-1'))?.status);
      },
    };
    const before = await answer(reading, request);
    expect(before.answer.body, 'read through the reading taken before the switch').to.equal('authentic');
    expect(before.stamp?.key, 'and stamped from that reading: generation 1 at 10').to.equal('1.10');
    await clock.refresh();
    expect((await answer(reading, request)).answer.status, 'the rebuild\'s confirmation, written before its switch, not seen happen')
      .to.equal(503);
    // Its owner confirms again in generation 2, as a live projector does once it holds the new generation.
    await store.setControl(checkpointAt(2, 12, 4), {}, true);
    await clock.refresh();
    const after = await answer(reading, request);
    expect(after.answer.body).to.equal('stolen');
    expect(after.stamp?.key).to.equal('2.12');
  });

  it('stamps an answer from the reading its data came from when a poll lands while the operation reads (the clock moved on meanwhile)', async function () {
    const store = createMemoryReadStore();
    const controlled = controlledReadStore(store);
    const serial = (status: string, position: number) => ({ _id: 'AUR-1', serial: 'AUR-1', status, position });
    const checkpointAt = (generation: number, position: number) => ({
      ...newCheckpoint('serials', generation, 1, position), confirmed: { head: position, at: new Date().toISOString() },
    });
    await store.write('serials', [{ put: serial('authentic', 10) }]);
    await store.setControl(checkpointAt(1, 10), {}, true);
    const clock = await startReadModelClock(() => readSnapshotStates(controlled.store), { intervalMs: 60_000 });
    clock.stop();
    // A confirmation seen happening since the start, so that the serials are fresh (read-model-clock.ts).
    await confirmAgain(store);
    await clock.refresh();
    const answer = answerInSnapshot({ clock } as Partial<ReadingEnv> as ReadingEnv);
    // While the operation reads the serial through its snapshot, generation 2 (the theft at 12) goes live and this
    // process's clock polls it: the poll completes before the read does.
    controlled.intercept({
      method: 'snapshot.get', times: 1, run: async () => {
        await store.generation('serials', 2).write([{ put: serial('stolen', 12) }]);
        await store.setControl(checkpointAt(2, 12), {}, true);
        await store.setControl({ _id: GENERATIONS_ID, version: 1, live: { serials: 2 }, reserved: 2 }, {}, true);
        await clock.refresh();
      },
    });
    const reading: PublicOperation = {
      ...verifying,
      async handle(_request, { readStore }) {
        return ok((await readStore.get<{ status: string } & StoredDoc>('serials', 'AUR-1'))?.status);
      },
    };
    const during = await answer(reading, request);
    expect(clock.view(['serials'])().key, 'the clock polled generation 2 during the read').to.equal('2.12');
    expect(during.answer.body, 'read through the snapshot taken before the switch').to.equal('authentic');
    expect(during.stamp?.key, 'stamped from that snapshot, not from the clock\'s newer one: generation 1 at 10').to.equal('1.10');
  });
});

