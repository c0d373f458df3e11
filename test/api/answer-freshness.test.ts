/**
 * Issue 20, case 4: an answer is no older than the data it read. A cached answer is kept only while every
 * projection it read stays where it was, so a stuck, parked or lagging projection freezes nothing else; what one
 * process serves never goes back; the position header and the ETag say what the answer reflects. The clock is
 * refreshed by hand (no timer, no sleep).
 */
import { expect } from 'chai';
import type { SerialDoc, WatchDoc } from '../../shared/read-model/documents/documents.ts';
import type { ProjectionState } from '../../shared/read-model/projections/projection-states.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';
import { send } from '../support/http.ts';
import { checkpoint, putAll, SERIALS } from './support/catalogue-fixture.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/** A projection parked on the event after `position`: it applied the history up to `position` and stopped there. */
const parkedAt = (name: string, position: number, reason: string) =>
  ({ ...checkpoint(name, position), status: 'parked' as const, parked: { position: position + 1, reason } });

describe('answers no older than the data they read (issue 20, case 4)', () => {
  let app: TestApp;
  beforeEach(async () => { app = await startTestApp(); });
  afterEach(async () => { await app.close(); });

  const moveWatch = async (reference: string, priceCents: number, position: number) => {
    const [doc] = await app.store.find<WatchDoc>('watches', { _id: `en:${reference}` });
    const moved: WatchDoc = { ...doc!, price_cents: priceCents, position };
    await app.store.write('watches', [{ put: moved }]);
  };

  it('answers STOLEN once the serials projection has applied a theft report, while the watches projection is stuck', async () => {
    // The watches projection stopped on an event it cannot apply, at the position the serials projection stands.
    await putAll(app.store, 'checkpoints', [parkedAt('watches', 40, 'event 41 (WatchRepriced): boom')]);
    await app.clock.refresh();
    const path = '/api/public/verify/AUR-0001';
    expect((await send(app.url, path)).json().verification_status).to.equal('AUTHENTIC');
    expect((await send(app.url, path)).json().verification_status, 'asked again, same client').to.equal('AUTHENTIC');

    const stolen: SerialDoc = { ...SERIALS[0]!, status: 'stolen', position: 45 };
    await putAll(app.store, 'serials', [stolen]);
    await putAll(app.store, 'checkpoints', [checkpoint('serials', 45)]);
    await app.clock.refresh();

    const after = await send(app.url, path);
    expect(after.json().verification_status).to.equal('STOLEN');
    expect(after.json().stolen).to.equal(true);
    expect(after.headers['x-read-model-position'], 'the serials projection is what a verification read').to.equal('45');
  });

  it('does not freeze the answers of operations that do not read a lagging projection', async () => {
    // The configurators projection lags far behind; the watch detail reads only the watches projection.
    await putAll(app.store, 'checkpoints', [checkpoint('configurators', 5)]);
    await app.clock.refresh();
    const path = '/api/public/catalogue/RG-100';
    const before = await send(app.url, path);

    await moveWatch('RG-100', 123_400, 60);
    await putAll(app.store, 'checkpoints', [checkpoint('watches', 60)]);
    await app.clock.refresh();

    const after = await send(app.url, path);
    expect(after.json().price_eur).to.equal(1234);
    expect(after.headers['x-read-model-position']).to.equal('60');
    expect(after.headers['etag']).not.to.equal(before.headers['etag']);
    // The lagging projection's own answers still say where it stands.
    expect((await send(app.url, '/api/public/configurator/options/regate')).headers['x-read-model-position']).to.equal('5');
  });

  it('follows a model\'s price change in the configurator options, though only the watches projection moved', async () => {
    const path = '/api/public/configurator/options/regate';
    const before = (await send(app.url, path)).json();
    expect(before.models[0]).to.deep.include({ model_ref: 'RG-100', base_price_eur: 12500 });
    await moveWatch('RG-100', 1_299_900, 60);
    await putAll(app.store, 'checkpoints', [checkpoint('watches', 60)]);
    await app.clock.refresh();
    expect((await send(app.url, path)).json().models[0]).to.deep.include({ model_ref: 'RG-100', base_price_eur: 12999 });
  });

  it('answers 304 only while the answer the client holds is still the one it would get', async () => {
    await putAll(app.store, 'checkpoints', [checkpoint('collections', 30)]);
    await app.clock.refresh();
    const path = '/api/public/catalogue/RG-100';
    const held = await send(app.url, path);
    const etag = String(held.headers['etag']);
    const unchanged = await send(app.url, path, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).to.equal(304);
    expect(unchanged.headers['etag']).to.equal(etag);

    await moveWatch('RG-100', 99_900, 50);
    await putAll(app.store, 'checkpoints', [checkpoint('watches', 50)]);
    await app.clock.refresh();

    const changed = await send(app.url, path, { headers: { 'if-none-match': etag } });
    expect(changed.status, 'the price moved: the held answer is stale').to.equal(200);
    expect(changed.json().price_eur).to.equal(999);
    expect(changed.headers['etag']).not.to.equal(etag);
    expect(changed.headers['x-read-model-position']).to.equal('50');
    const again = await send(app.url, path, { headers: { 'if-none-match': String(changed.headers['etag']) } });
    expect(again.status).to.equal(304);
    expect(again.headers['x-read-model-position']).to.equal('50');
  });

  it('never serves an older position after a projection\'s checkpoint is reset backwards (a rebuild\'s reset)', async () => {
    const path = '/api/public/catalogue/RG-100';
    const before = await send(app.url, path);
    const status = await send(app.url, '/api/public/status');
    expect(status.json().read_model.position).to.equal(40);

    await putAll(app.store, 'checkpoints', [checkpoint('watches', 20), checkpoint('serials', 20)]);
    await app.clock.refresh();

    const after = await send(app.url, path);
    expect(after.headers['x-read-model-position']).to.equal(before.headers['x-read-model-position']);
    expect(after.headers['etag']).to.equal(before.headers['etag']);
    expect((await send(app.url, '/api/public/status')).json().read_model.position).to.equal(40);
  });
});

describe('a generation switch as the API serves it (issue 20, case 4)', () => {
  let app: TestApp;
  let clock: PolledReadModelClock;
  // The projection states the clock reads, as a rebuild would leave them; set by each step of a test.
  let states: ProjectionState[];
  let confirmations = 0;
  // Each state confirmed anew (another marker), as a live projector keeps confirming its head.
  const state = (name: string, generation: number, position: number): ProjectionState => ({
    name, generation, position, status: 'running', parked: null, updated_at: '2025-03-01T00:00:00.000Z',
    confirmed: { head: position, at: new Date(Date.UTC(2025, 2, 1) + ++confirmations).toISOString() },
  });
  const setStates = async (...next: ProjectionState[]) => {
    states = next;
    await clock.refresh();
  };
  beforeEach(async () => {
    states = [state('watches', 0, 50), state('serials', 0, 50)];
    // Its first reading comes before the app's store exists, and is replaced before any request.
    clock = await startReadModelClock(async () => ({ view: app ? await app.store.snapshot() : createMemoryReadStore(), states }), { intervalMs: 60_000 });
    app = await startTestApp({ clock });
    // Confirmed again once the clock runs (the first confirmation it reads is not one it saw happen).
    await setStates(state('watches', 0, 50), state('serials', 0, 50));
  });
  afterEach(async () => {
    clock.stop();
    await app.close();
  });

  const setPrice = async (reference: string, priceCents: number, position: number) => {
    const docs = await app.store.find<WatchDoc>('watches', { reference });
    // A rebuilt generation may hold a document at a lower position than the live one held: set it whatever,
    // by compare-and-set on what was read.
    await app.store.write('watches', docs.map((doc) => ({ put: { ...doc, price_cents: priceCents, position }, expected: doc.position })));
  };
  const detail = '/api/public/catalogue/RG-100';
  const servedPosition = async () => (await send(app.url, '/api/public/status')).json().read_model.position as number;

  it('keeps serving what it served while the new generation is behind, then takes it once caught up', async () => {
    const served = await send(app.url, detail);
    expect(served.headers['x-read-model-position']).to.equal('50');
    expect(await servedPosition()).to.equal(50);

    // The rebuild switched to generation 1, which has only reached position 45 (an older price).
    await setPrice('RG-100', 111_100, 45);
    await setStates(state('watches', 1, 45), state('serials', 0, 50));
    // The URL answered before, and another spelling of the same request.
    for (const spelling of [detail, `${detail}?lang=en`]) {
      const again = await send(app.url, spelling);
      expect(again.headers['x-read-model-position'], spelling).to.equal('50');
      expect(again.headers['etag'], spelling).to.equal(served.headers['etag']);
      expect(again.text, spelling).to.equal(served.text);
    }
    expect(await servedPosition()).to.equal(50);

    // Caught up past what was served: generation 1 is taken.
    await setPrice('RG-100', 222_200, 55);
    await setStates(state('watches', 1, 55), state('serials', 0, 50));
    const switched = await send(app.url, detail);
    expect(switched.headers['x-read-model-position']).to.equal('55');
    expect(switched.json().price_eur).to.equal(2222);
    expect(switched.headers['etag']).not.to.equal(served.headers['etag']);

    // An older generation seen again at or below what was served (a stale pointer) is ignored; past it, it can only be
    // a read store put back from a copy made before the rebuild, whose projector went on: taken (served-state.ts).
    await setStates(state('watches', 0, 55), state('serials', 0, 50));
    const after = await send(app.url, detail);
    expect(after.headers['x-read-model-position']).to.equal('55');
    expect(after.headers['etag']).to.equal(switched.headers['etag']);
    await setPrice('RG-100', 333_300, 70);
    await setStates(state('watches', 0, 70), state('serials', 0, 50));
    const putBack = await send(app.url, detail);
    expect(putBack.headers['x-read-model-position']).to.equal('70');
    expect(putBack.json().price_eur).to.equal(3333);
  });

  it('answers a request it holds no answer for from the store behind, saying so, and keeps no such answer', async () => {
    await setStates(state('watches', 1, 45), state('serials', 0, 50));
    const path = '/api/public/catalogue?sort=price_asc';
    const first = await send(app.url, path);
    expect(first.headers['x-read-model-position'], 'what the store holds, not what was served').to.equal('45');
    const queries = app.store.queries;
    await send(app.url, path);
    expect(app.store.queries, 'asked the store again: nothing kept').to.be.above(queries);

    await setStates(state('watches', 1, 56), state('serials', 0, 50));
    const caughtUp = await send(app.url, path);
    expect(caughtUp.headers['x-read-model-position']).to.equal('56');
    const kept = app.store.queries;
    await send(app.url, path);
    expect(app.store.queries, 'kept once caught up').to.equal(kept);
  });

  it('moves a stamp only with the projections an operation reads', async () => {
    const verify = '/api/public/verify/AUR-0001';
    const before = await send(app.url, verify);
    const queries = app.store.queries;
    await setStates(state('watches', 2, 90), state('serials', 0, 50));
    const again = await send(app.url, verify);
    expect(app.store.queries, 'the serials projection did not move: from the cache').to.equal(queries);
    expect(again.headers['x-read-model-position']).to.equal(before.headers['x-read-model-position']);
  });
});
