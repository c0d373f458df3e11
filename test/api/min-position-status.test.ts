/**
 * `X-Min-Position` on the status (docs/api.md, "Read your writes"): `watchcat --wait` asks the status at or past the
 * position its command appended, and takes a 200 as "this replica serves it". While the store stands behind what the
 * process served (a checkpoint reset, a rebuild's switch to a generation still behind), every operation reads the
 * store behind and waits or refuses; the status must not be answered at the position once served instead.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/test-app.ts';
import { send } from '../support/http.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { checkpointId, readControlDocs, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';

describe('X-Min-Position on the status while the store stands behind what was served', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({}, { MIN_POSITION_WAIT_MS: '300' });
  });
  after(() => app.close());

  it('refuses the status as it refuses the catalogue, and stamps it with where the store stands', async () => {
    const served = app.clock.current();
    const watches = (await readProjectionStates(app.store)).find((state) => state.name === 'watches')!;
    // The watches' checkpoint set back below what was served, in the same generation (a reset).
    const checkpoint = (await readControlDocs(app.store)).get(checkpointId('watches', watches.generation)) as CheckpointState;
    await app.store.setControl({ ...checkpoint, position: served - 1 }, {}, true);
    await app.clock.refresh();
    expect(app.clock.current(), 'what the process served does not go back').to.equal(served);

    const asked = { headers: { 'x-min-position': String(served) } };
    const catalogue = await send(app.url, '/api/public/catalogue', asked);
    expect(catalogue.status, 'the catalogue reads the store behind').to.equal(503);
    const status = await send(app.url, '/api/public/status', asked);
    expect([status.status, status.headers['x-read-model-position']], 'status at the position asked').to.deep.equal([503, undefined]);
    expect(status.headers['retry-after']).to.equal('1');
    const plain = await send(app.url, '/api/public/status');
    expect(plain.headers['x-read-model-position'], 'status without the header').to.equal(String(served - 1));
  });

  it('meets no position from a parked projection, on the status or an operation that reads it, and leaves the others answered', async () => {
    const served = app.clock.current();
    const watches = (await readProjectionStates(app.store)).find((state) => state.name === 'watches')!;
    const checkpoint = (await readControlDocs(app.store)).get(checkpointId('watches', watches.generation)) as CheckpointState;
    // Parked where it stands (an event store put back under it: docs/api.md, "Stores put back from a copy").
    const reason = 'the history was put back to an older copy';
    await app.store.setControl({ ...checkpoint, position: served, status: 'parked', parked: { position: served, reason } }, {}, true);
    await app.clock.refresh();
    try {
      const asked = { headers: { 'x-min-position': '1' } };
      for (const path of ['/api/public/status', '/api/public/catalogue']) {
        expect((await send(app.url, path, asked)).status, `${path}: reads the parked watches`).to.equal(503);
      }
      const verify = await send(app.url, '/api/public/verify/AUR-0001', asked);
      expect(verify.status, `the registry reads no parked projection: ${verify.text}`).to.equal(200);
    } finally {
      await app.store.setControl({ ...checkpoint, position: served }, {}, true);
      await app.clock.refresh();
    }
  });
});
