/**
 * The transparency log's projection rebuilt (issue 32): over the same history a rebuild reproduces the very tiles
 * the live projection holds and goes live; over a history edited since a checkpoint was signed it stops before its
 * switch, says why and leaves the live log as it was, running and served.
 */
import { generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild, RebuildRefusedError } from '../../shared/read-model/projections/rebuild.ts';
import { signedLogOf, logProjection } from '../support/signed-log.ts';
import { writeKnownHistory, type TempStore } from '../audit/support/audit-history.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('transparency log projection rebuilt', function () {
  this.timeout(30_000);
  let temp: TempStore;
  let events: EventStore;
  let readStore: ReadStore;
  let log: TransparencyLog;

  beforeEach(async () => {
    temp = await writeKnownHistory();
    events = openSqliteEventStore(temp.file);
    ({ log, readStore } = await signedLogOf(events, generateKeyPairSync('ed25519').privateKey, ORIGIN));
    expect(log.checkpoint()?.size).to.equal(12);
  });
  afterEach(async () => {
    await log.stop();
    await events.close();
    rmSync(temp.dataDir, { recursive: true, force: true });
  });

  const tiles = async () => (await readStore.find<StoredDoc>('tlog', {}, { sort: { _id: 1 } })).map(({ position: _, ...doc }) => doc);
  const logState = async () => (await readProjectionStates(readStore)).find((state) => state.name === 'transparency-log')!;

  it('reproduces the same hashes over the same history, and goes live', async () => {
    const before = await tiles();
    const { generation: was } = await logState();
    const result = await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    expect(result.generation).to.be.above(was);
    expect(await tiles()).to.deep.equal(before);
    expect((await logState()).status).to.equal('running');
  });

  // Issue 40, item 4: the live log is left alone, running (it was parked before), and still served as signed.
  it('stops before its switch over a history edited since a checkpoint was signed, saying why: the live log left running, its tiles kept', async () => {
    const before = await tiles();
    const { generation: live } = await logState();
    const db = new Database(temp.file);
    db.prepare(`UPDATE events SET data = replace(data, '1250000', '1') WHERE position = 4`).run();
    db.close();
    const error = await rebuild({ eventStore: events, readStore, projections: [logProjection] }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(RebuildRefusedError);
    expect((error as Error).message).to.equal('rebuild of projection transparency-log stopped before its switch, the live generation left as it is: '
      + 'the first 12 events of the history give another root than the checkpoint signed for that size');
    expect(await logState()).to.deep.include({ generation: live, status: 'running', parked: null });
    expect(await tiles()).to.deep.equal(before);
    await log.look();
    const view = await log.read();
    expect(view.parked).to.equal(undefined);
    expect(view.checkpoint?.size).to.equal(12);
  });

  it('stops before its switch over a history shorter than the tree signed, saying why: the live log left running and served', async () => {
    const before = await tiles();
    const { generation: live } = await logState();
    const db = new Database(temp.file);
    db.prepare('DELETE FROM events WHERE position = (SELECT MAX(position) FROM events)').run();
    db.close();
    const error = await rebuild({ eventStore: events, readStore, projections: [logProjection] }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).to.be.instanceOf(RebuildRefusedError);
    expect((error as Error).message).to.equal('rebuild of projection transparency-log stopped before its switch, the live generation left as it is: '
      + 'the history holds 11 events, fewer than the 12 signed before');
    expect(await logState()).to.deep.include({ generation: live, status: 'running', parked: null });
    expect(await tiles()).to.deep.equal(before);
    await log.look();
    expect((await log.read()).parked).to.equal(undefined);
  });
});
