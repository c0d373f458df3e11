/**
 * Issue 20, "failures heal or say why": a parked projection (stopped on an event it cannot apply) is named with
 * the event's position and the reason on `/readyz`, said by status `degraded`, and shown in `/metrics`; the
 * answers of the projections still running are served as usual; a verification, which needs the registry fresh, is
 * refused at once while the registry's projection is parked.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { FIRST_GENERATION } from '../../shared/ports/read-store.ts';
import { checkpointId, readControlDocs, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';
import { send } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { checkpoint, loadFixtureCatalogue, putAll } from './support/catalogue-fixture.ts';

describe('parked projections on readiness, status and metrics (issue 20)', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('names the parked projection, its position and its reason, and keeps answering from the others', async () => {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    const reason = 'event 41 (WatchRepriced): price must be positive';
    // Applied the history up to 40, stopped on the event at 41.
    const parked = { ...checkpoint('watches', 40), status: 'parked' as const, parked: { position: 41, reason } };
    await putAll(store, 'checkpoints', [parked]);
    api = await startReadApiUnderTest({ readStore: store });

    const ready = await send(api.opsUrl, '/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.json().checks.parked_projections).to.deep.equal([{ name: 'watches', position: 41, reason }]);
    expect((await send(api.url, '/api/public/status')).json().status).to.equal('degraded');
    const metrics = (await send(api.opsUrl, '/metrics')).text;
    expect(metrics).to.match(/^projection_parked_position\{projection="watches",reason="event 41 \(WatchRepriced\): price must be positive"\} 41$/m);
    expect(metrics).not.to.match(/^projection_parked_position\{projection="serials"/m);

    const verify = await send(api.url, '/api/public/verify/AUR-0001');
    expect(verify.json().verification_status).to.equal('AUTHENTIC');
    expect(verify.headers['x-read-model-position']).to.equal('40');
  });

  it('refuses a verification at once while the registry\'s projection is parked, kept answers included, and answers again once it runs', async () => {
    api = await startReadApiUnderTest({ env: { VERIFY_MAX_LAG_SECONDS: '3600' } });
    const first = await send(api.url, '/api/public/verify/AUR-0001');
    expect(first.json().verification_status, 'fresh and running').to.equal('AUTHENTIC');
    const serials = (await readControlDocs(api.store)).get(checkpointId('serials', FIRST_GENERATION)) as CheckpointState | undefined;
    // Stopped on a theft it cannot apply, its last confirmation a second old: well within the hour's bound above.
    const reason = 'event 41 (SerialReportedStolen): cannot be applied';
    await api.store.setControl({ ...serials!, status: 'parked', parked: { position: 41, reason } }, {}, true);
    await api.running.refreshReadModels();
    for (const lang of ['en', 'fr']) {
      const refused = await send(api.url, `/api/public/verify/AUR-0001?lang=${lang}`);
      expect(refused.status, `${lang}: ${refused.text}`).to.equal(503);
      expect(refused.headers['retry-after'], lang).to.match(/^[1-9][0-9]*$/);
      expect(refused.json().verification_status, lang).to.equal(undefined);
    }
    // Neither the kept answer nor a 304 confirming whatever the client holds.
    for (const headers of [{}, { 'if-none-match': '*' }] as Record<string, string>[]) {
      expect((await send(api.url, '/api/public/verify/AUR-0001', { headers })).status, JSON.stringify(headers)).to.equal(503);
    }
    expect((await send(api.url, '/api/public/catalogue/RG-100')).status, 'a watch reads no parked projection').to.equal(200);
    await api.store.setControl({ ...serials!, confirmed: { head: 40, at: new Date().toISOString() } }, {}, true);
    await api.running.refreshReadModels();
    expect((await send(api.url, '/api/public/verify/AUR-0001')).json().verification_status, 'resumed and confirmed').to.equal('AUTHENTIC');
  });
});
