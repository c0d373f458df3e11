/**
 * The read store alone put back from an older copy (a MongoDB dump restored), the event store untouched, under the
 * log's signers (docs/api.md, "Stores put back from a copy"). Each API process puts the checkpoint it kept in its
 * DATA_DIR back over the copy's older one; the copy's log is short of it only until its projector applies again the
 * events since the copy. The copy also holds its projector's confirmation of that time, of a head its log had
 * reached: an older word put back, not its owner saying now that the history ends there. The history is not
 * shorter, so nothing may be refused (no alert logged, no refusal counted, the routes serving), whether the process
 * ran through the restore or started after it, put the checkpoint back itself or found it put back by another (even
 * between its read and its compare-and-set, the put-back then ending at once with the checkpoint stored); and
 * once the projector caught up, what the log serves extends the checkpoint kept. The read store is an in-memory one
 * whose whole state is put back, as a MongoDB restore does.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore, type MemoryReadState } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import type { ControlDoc, ReadStore } from '../../shared/ports/read-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { verifyConsistency } from '../../shared/read-model/transparency/merkle.ts';
import { SIGNED_CHECKPOINT_ID, signedCheckpointDoc, signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { createProjector } from '../../projector/runner.ts';
import { checkpointFile } from '../../read-api/transparency/checkpoint-file.ts';
import { startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyLogMetrics } from '../../read-api/transparency/log-metrics.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { controlledReadStore, type Interception } from '../support/controlled-read-store.ts';
import { restorableReadStore } from '../support/restorable-read-store.ts';
import { capturingLogger, logProjection, servedLogRoutes } from '../support/signed-log.ts';
import { until } from '../support/until.ts';
import { appendAll } from './support/history.ts';

const ORIGIN = 'watch.example/watchcat/events';
const KEY = generateKeyPairSync('ed25519').privateKey;
const serials = (prefix: string, count: number): NewEvent[] =>
  Array.from({ length: count }, (_, i) => serialRegistered(`${prefix}-${String(i).padStart(4, '0')}`));

type Line = { level: number; msg: string; alert?: string };

/** The log of the whole of `eventStore`, projected from nothing else: what any checkpoint of it must agree with. */
async function cleanLog(eventStore: EventStore): Promise<TileLog> {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh, projections: [logProjection] });
  return TileLog.read(await fresh.snapshot());
}

describe('transparency log: the read store alone put back from an older copy, the event store untouched', function () {
  this.timeout(30_000);
  let dir: string;
  let events: EventStore;
  let reads: ReturnType<typeof restorableReadStore>;
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const running: { stop(): Promise<void> }[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-readstore-restore-'));
    events = openSqliteEventStore(':memory:');
    reads = restorableReadStore([logProjection.collection]);
  });
  afterEach(async () => {
    for (const one of running.splice(0)) await one.stop();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });
  after(() => queue.close());

  /** The log's projection caught up with the event store, as the projectors keep it. */
  const project = () => createProjector({ eventStore: events, readStore: reads.store, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
  const machine = (name: string) => join(dir, name);

  /**
   * An API process's signer as read-api/main.ts starts it, keeping its record on `machine`, its error lines kept; it
   * looks when told (or every `intervalMs`), reading the read store through `readStore`.
   */
  async function apiProcess(dataDir: string, intervalMs = 60_000, readStore: ReadStore = reads.store): Promise<{ log: TransparencyLog; errors: Line[] }> {
    const { logger, lines } = capturingLogger<Line>();
    const log = await startTransparencyLog({ readStore, record: checkpointFile(dataDir), key: KEY, origin: ORIGIN, logger, intervalMs });
    running.push(log);
    return { log, get errors() { return lines.filter((line) => line.level >= 50); } };
  }

  /** Four events projected and signed by `signer`, a copy of the read store taken, two more projected and signed. */
  async function sixSignedAfterCopy(signer: TransparencyLog): Promise<{ copy: MemoryReadState; kept: string }> {
    await appendAll(events, serials('BEFORE-COPY', 4));
    await project();
    await signer.look();
    expect(signer.checkpoint()?.size, 'signed before the copy').to.equal(4);
    const copy = reads.backup();
    await appendAll(events, serials('AFTER-COPY', 2));
    await project();
    await signer.look();
    expect(signer.checkpoint()?.size, 'signed after the copy').to.equal(6);
    return { copy, kept: signer.checkpoint()!.note };
  }

  /** Nothing refused by `api`: no alert logged, no refusal counted, the log not held back from its routes. */
  async function notRefused(api: { log: TransparencyLog; errors: Line[] }, when: string): Promise<void> {
    expect(api.errors.map(({ msg, alert }) => ({ msg, alert })), `${when}: no error logged`).to.deep.equal([]);
    expect(api.log.refusals(), `${when}: no refusal counted`).to.equal(0);
    expect(api.log.parked(), `${when}: not refused`).to.equal(undefined);
    expect((await api.log.read()).parked, `${when}: what the routes serve from`).to.equal(undefined);
  }

  /**
   * The projector catches up and two more events are projected: `api` then signs (or serves) the tree of 8 leaves of
   * the one history, which a consistency proof shows extends the checkpoint `kept` before the restore.
   */
  async function extendsKept(api: { log: TransparencyLog; errors: Line[] }, kept: string): Promise<void> {
    await project();
    await api.log.look();
    await notRefused(api, 'the projector caught up');
    await appendAll(events, serials('AFTER-RESTORE', 2));
    await project();
    await api.log.look();
    await notRefused(api, 'two more events');
    const served = api.log.checkpoint()!;
    expect(served.size, 'the tree served').to.equal(8);
    const clean = await cleanLog(events);
    expect(Buffer.from(served.root).toString('base64'), 'the root of the one history').to.equal(Buffer.from(await clean.root(8)).toString('base64'));
    const { size, root } = signedCheckpointDoc(kept);
    expect(size).to.equal(6);
    const { proof } = await clean.consistency(6, 8);
    expect(verifyConsistency(6, 8, Buffer.from(root, 'base64'), served.root, proof), 'extends the checkpoint kept').to.equal(true);
  }

  it('a process running through the restore, looking before its projector caught up, refuses nothing, serves the checkpoint it kept once caught up, then signs what extends it', async () => {
    const api = await apiProcess(machine('a'));
    const { copy, kept } = await sixSignedAfterCopy(api.log);
    const routes = await servedLogRoutes(api.log);
    running.push({ stop: routes.close });

    reads.restore(copy);
    await api.log.look();
    expect(signedCheckpointOf(await reads.store.readControl())?.note, 'stored by the look that found the copy').to.equal(kept);
    await notRefused(api, 'the copy put back');
    // Its tiles behind the checkpoint put back, the routes answer 503 as for any store being filled, until it caught up.
    await project();
    await api.log.look();
    const answer = await fetch(`${routes.base}/transparency/checkpoint`);
    expect(answer.status, 'the checkpoint route, the projector caught up').to.equal(200);
    expect(await answer.text(), 'the checkpoint kept, put back').to.equal(kept);
    await extendsKept(api, kept);
  });

  it('a replica running through the restore that finds the checkpoint put back by another refuses nothing', async () => {
    const signer = await apiProcess(machine('a'));
    const server = await apiProcess(machine('b'));
    const { copy, kept } = await sixSignedAfterCopy(signer.log);
    await server.log.look();
    expect(server.log.checkpoint()?.note, 'served before the restore').to.equal(kept);

    reads.restore(copy);
    await signer.log.look();
    await server.log.look();
    await notRefused(signer, 'the copy put back');
    await notRefused(server, 'the copy put back by the other');
    await extendsKept(server, kept);
  });

  it('two processes sharing a DATA_DIR, putting the checkpoint kept back at once, each end their look with it stored', async () => {
    const steered = controlledReadStore(reads.store);
    // Its reads answer in a later turn of the event loop, as a store over the network does: a look that kept reading
    // lets the test's timeout fire rather than hold the run.
    steered.intercept({ method: 'readControl', run: () => new Promise<void>((resolve) => { setImmediate(resolve); }) });
    const first = await apiProcess(machine('a'), 60_000, steered.store);
    const { copy, kept } = await sixSignedAfterCopy(first.log);
    const second = await apiProcess(machine('a'));

    reads.restore(copy);
    // The other process puts it back between the first one's read of the copy's checkpoint and its compare-and-set.
    const between: Interception = {
      method: 'setControl', times: 1, when: ({ args }) => (args[0] as ControlDoc)._id === SIGNED_CHECKPOINT_ID, run: () => second.log.look(),
    };
    steered.intercept(between);
    await first.log.look();
    expect(between.times, 'put back by the other in between').to.equal(0);
    expect(signedCheckpointOf(await reads.store.readControl())?.note, 'the checkpoint kept, stored').to.equal(kept);
    await notRefused(first, 'put back by the other meanwhile');
    await notRefused(second, 'put back');
    await extendsKept(first, kept);
  });

  it('a process started after the restore, with its DATA_DIR record, refuses nothing, then signs what extends the checkpoint it kept', async () => {
    const first = await apiProcess(machine('a'));
    const { copy, kept } = await sixSignedAfterCopy(first.log);
    for (const stopping of running.splice(0)) await stopping.stop();

    reads.restore(copy);
    const again = await apiProcess(machine('a'));
    await notRefused(again, 'started over the copy');
    expect(again.log.checkpoint()?.note, 'the checkpoint kept, put back').to.equal(kept);
    await extendsKept(again, kept);
  });

  it('a process started after another put its checkpoint back over the copy refuses nothing', async () => {
    const signer = await apiProcess(machine('a'));
    const server = await apiProcess(machine('b'));
    const { copy, kept } = await sixSignedAfterCopy(signer.log);
    await server.log.look();
    await server.log.stop();

    reads.restore(copy);
    await signer.log.look();
    const again = await apiProcess(machine('b'));
    await notRefused(again, 'started over the copy put back by the other');
    await extendsKept(again, kept);
  });

  it('a process looking on its timer under a running projector refuses nothing while the projector catches up, and counts no refusal', async () => {
    const api = await apiProcess(machine('a'), 10);
    const registry = new Registry();
    transparencyLogMetrics(registry, api.log);
    const projector = createProjector({
      eventStore: events, readStore: reads.store, queue, logger: pino({ level: 'silent' }), projections: [logProjection], pollIntervalMs: 100,
    });
    await projector.catchUp();
    projector.start();
    running.unshift({ stop: () => projector.stop() });
    const copyAt = await appendAll(events, serials('BEFORE-COPY', 4));
    await until('the tree of 4 signed', () => api.log.checkpoint()?.size === 4);
    await projector.waitFor(copyAt);
    const copy = reads.backup();
    await appendAll(events, serials('AFTER-COPY', 2));
    await until('the tree of 6 signed', () => api.log.checkpoint()?.size === 6);
    const kept = api.log.checkpoint()!.note;

    reads.restore(copy);
    await appendAll(events, serials('AFTER-RESTORE', 2));
    await until('the tree of 8 signed', () => api.log.checkpoint()?.size === 8, 10_000);
    await notRefused(api, 'caught up');
    expect(await registry.getSingleMetricAsString('transparency_log_refused_trees_total')).to.match(/^transparency_log_refused_trees_total 0$/m);
    const clean = await cleanLog(events);
    const { root } = signedCheckpointDoc(kept);
    const { proof } = await clean.consistency(6, 8);
    expect(verifyConsistency(6, 8, Buffer.from(root, 'base64'), api.log.checkpoint()!.root, proof), 'extends the checkpoint kept').to.equal(true);
  });
});
