/**
 * A read store put back to an older copy (a MongoDB dump restored) holds the checkpoints as they stood then, each
 * with its owner's confirmation of that time. Every API process counts a confirmation that changed as one it saw
 * happen (read-model-clock.ts): an older one put back would make the copy's registry fresh, and a serial stolen
 * since the copy be answered AUTHENTIC. A confirmation of a head below the one this process saw confirmed in the same
 * generation can only be an older one: it is not counted as happening, and verifications wait for the next. A copy
 * made before a model was built holds no checkpoint of it, as does a read store emptied: that model is not built.
 */
import { expect } from 'chai';
import type { SerialDoc } from '../../shared/read-model/documents/documents.ts';
import { checkpointId, type CheckpointState } from '../../shared/read-model/projections/control-docs.ts';
import { FIRST_GENERATION, type StoredDoc } from '../../shared/ports/read-store.ts';
import { send } from '../support/http.ts';
import { putAll, SERIALS } from './support/catalogue-fixture.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

const PATH = '/api/public/verify/AUR-0001';

describe('a read store put back to an older copy', () => {
  let app: TestApp;
  beforeEach(async () => { app = await startTestApp(); });
  afterEach(async () => { await app.close(); });

  const serialsCheckpoint = async () =>
    (await app.store.readControl()).find((doc) => doc._id === checkpointId('serials', FIRST_GENERATION)) as CheckpointState & StoredDoc;
  const confirmedAt = (copy: CheckpointState, position: number, marker: string): CheckpointState & StoredDoc =>
    ({ ...copy, position, confirmed: { head: position, at: marker } });

  it('is not answered from as fresh: its older confirmation did not happen now', async () => {
    // The copy: the serials model at 40 (AUR-0001 authentic), confirmed.
    const copy = await serialsCheckpoint();
    expect(copy.position).to.equal(40);
    // A theft, applied at 45 and confirmed.
    const stolen: SerialDoc = { ...SERIALS[0]!, status: 'stolen', position: 45 };
    await putAll(app.store, 'serials', [stolen]);
    await putAll(app.store, 'checkpoints', [confirmedAt(copy, 45, 'confirmed after the theft')]);
    await app.clock.refresh();
    expect(app.clock.refusal(['serials'], true), 'the theft confirmed: fresh').to.equal(undefined);

    // The copy put back: the serial's document and the checkpoint as they were, with a confirmation of that time.
    await app.store.write('serials', [{ put: SERIALS[0]!, expected: 45 }]);
    await putAll(app.store, 'checkpoints', [confirmedAt(copy, 40, 'confirmed before the copy')]);
    await app.clock.refresh();
    const answer = await send(app.url, PATH);
    expect(answer.status, `no answer from the copy as if fresh: ${answer.text}`).to.equal(503);

    // Its projector applies the theft again and confirms the head: answered again.
    await putAll(app.store, 'serials', [stolen]);
    await putAll(app.store, 'checkpoints', [confirmedAt(copy, 45, 'confirmed again')]);
    await app.clock.refresh();
    const again = await send(app.url, PATH);
    expect(again.status).to.equal(200);
    expect(again.json().verification_status).to.equal('STOLEN');
  });

  it('emptied under a running API (no checkpoint, no serial): refuses every verification at once, none answered NOT_FOUND or from a kept answer', async () => {
    const stolen = SERIALS.find((serial) => serial.status === 'stolen')!;
    const kept = await send(app.url, PATH);
    expect(kept.json().verification_status, 'asked once: kept in the URL cache').to.equal('AUTHENTIC');
    expect((await send(app.url, `/api/public/verify/${stolen._id}`)).json().verification_status).to.equal('STOLEN');
    for (const doc of await app.store.readControl()) await app.store.removeControl(doc._id);
    await app.store.write('serials', SERIALS.map((serial) => ({ delete: { _id: serial._id, position: 1_000 } })));
    await app.clock.refresh();
    for (const path of [PATH, `/api/public/verify/${stolen._id}`]) {
      const answer = await send(app.url, path);
      expect(answer.status, `${path}, within the 5 s bound of the last confirmation seen: ${answer.text}`).to.equal(503);
      expect(answer.headers['x-read-model-position'], path).to.equal(undefined);
    }
    expect((await send(app.url, '/api/public/catalogue')).status, 'nor a catalogue read from a store holding none').to.equal(503);
  });
});
