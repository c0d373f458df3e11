/**
 * Issue 20, case 4: an answer is no older than the data it read. A cached answer is kept only while every
 * projection it read stays where it was, so a stuck, parked or lagging projection freezes nothing else; what one
 * process serves never goes back; the position header and the ETag say what the answer reflects. The clock is
 * refreshed by hand (no timer, no sleep).
 */
import { expect } from 'chai';
import type { SerialDoc, WatchDoc } from '../../shared/read-models/documents.ts';
import { resetOps } from '../../shared/projections/checkpoints.ts';
import { send } from '../support/http.ts';
import { checkpoint, putAll, SERIALS } from './support/catalogue-fixture.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

const failed = (name: string, position: number, error: string) => ({ ...checkpoint(name, position), status: 'failed' as const, error });

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
    await app.store.write('checkpoints', resetOps(failed('watches', 40, 'event 41 (WatchRepriced): boom')));
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

    await app.store.write('checkpoints', resetOps(checkpoint('watches', 20)));
    await app.store.write('checkpoints', resetOps(checkpoint('serials', 20)));
    await app.clock.refresh();

    const after = await send(app.url, path);
    expect(after.headers['x-read-model-position']).to.equal(before.headers['x-read-model-position']);
    expect(after.headers['etag']).to.equal(before.headers['etag']);
    expect((await send(app.url, '/api/public/status')).json().read_model.position).to.equal(40);
  });
});
