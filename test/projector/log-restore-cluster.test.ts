/**
 * The cluster mode's signers (read-api/main.ts: several API processes over one MongoDB read store, each keeping its
 * record in its DATA_DIR) when the read store and the event store are put back together from an older copy and
 * events are appended after it (docs/api.md, "Stores put back from a copy"). The log key must sign no other tree at
 * a size it signed, whether the process ran through the restore or started again after it, and whether it signed
 * the checkpoint itself or only served the one another replica signed. The read store is an in-memory one whose
 * whole state is put back (as a MongoDB restore does), the event store a SQLite file copied back.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore, type MemoryReadState } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore, NewEvent } from '../../shared/ports/event-store.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { createProjector } from '../../projector/runner.ts';
import { checkpointFile } from '../../read-api/transparency/checkpoint-file.ts';
import { startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { restorableReadStore } from '../support/restorable-read-store.ts';
import { capturingLogger, logProjection } from '../support/signed-log.ts';
import { appendAll } from './support/history.ts';

const ORIGIN = 'watch.example/watchcat/events';
const KEY = generateKeyPairSync('ed25519').privateKey;
const serials = (prefix: string, count: number): NewEvent[] =>
  Array.from({ length: count }, (_, i) => serialRegistered(`${prefix}-${String(i).padStart(4, '0')}`));

/** The root of the first `size` events of `eventStore`, as a log projected from nothing else gives it. */
async function cleanRoot(eventStore: EventStore, size: number): Promise<string> {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh, projections: [logProjection] });
  return Buffer.from(await (await TileLog.read(await fresh.snapshot())).root(size)).toString('base64');
}

/**
 * A deployment's two stores, each of which can be put back to a copy taken earlier: the read store (all its state, in
 * place, under whoever reads it) and the SQLite event store (its file copied back while closed).
 */
function restorableDeployment(dir: string) {
  const file = join(dir, 'events.sqlite3');
  let events = openSqliteEventStore(file);
  const reads = restorableReadStore([logProjection.collection]);
  const { store: readStore } = reads;
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  return {
    readStore,
    events: () => events,
    /** The log's projection caught up with the event store, as the projectors keep it. */
    project: () => createProjector({ eventStore: events, readStore, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp(),
    async backup(): Promise<{ file: string; state: MemoryReadState }> {
      await events.close();
      copyFileSync(file, `${file}.copy`);
      events = openSqliteEventStore(file);
      return { file: `${file}.copy`, state: reads.backup() };
    },
    async restore(copy: { file: string; state: MemoryReadState }): Promise<void> {
      await events.close();
      copyFileSync(copy.file, file);
      events = openSqliteEventStore(file);
      reads.restore(copy.state);
    },
    close: async () => {
      await queue.close();
      await events.close();
    },
  };
}

type Line = { level: number; msg: string; alert?: string; size?: number; signed?: number };

describe('transparency log in cluster mode: the read store and the event store put back together from an older copy', function () {
  this.timeout(30_000);
  let dir: string;
  let deployment: ReturnType<typeof restorableDeployment>;
  const publishers: TransparencyLog[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-logrestore-'));
    deployment = restorableDeployment(dir);
  });
  afterEach(async () => {
    await Promise.all(publishers.splice(0).map((publisher) => publisher.stop()));
    await deployment.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An API process's signer as read-api/main.ts starts it, on a machine whose DATA_DIR is `dataDir`. */
  async function replica(dataDir: string, logger = pino({ level: 'silent' })): Promise<TransparencyLog> {
    const publisher = await startTransparencyLog({ readStore: deployment.readStore, record: checkpointFile(dataDir), key: KEY, origin: ORIGIN, logger, intervalMs: 60_000 });
    publishers.push(publisher);
    return publisher;
  }
  const machine = (name: string) => join(dir, name);

  /** The first four events projected, then a copy taken of both stores. */
  async function fourThenCopy(): Promise<{ file: string; state: MemoryReadState }> {
    await appendAll(deployment.events(), serials('OLD', 4));
    await deployment.project();
    return deployment.backup();
  }
  /** Two more events projected after the copy: the tree of 6 signed before the restore. */
  async function twoMore(): Promise<void> {
    await appendAll(deployment.events(), serials('LOST', 2));
    await deployment.project();
  }

  /** Both stores put back, and two other events appended and projected: the size 6 now holds another tree. */
  async function restoreThenFork(copy: { file: string; state: MemoryReadState }, signedBefore: string): Promise<void> {
    await deployment.restore(copy);
    await appendAll(deployment.events(), serials('NEW', 2));
    await deployment.project();
    expect(await cleanRoot(deployment.events(), 6), 'the restored history holds another tree of 6').to.not.equal(signedBefore);
  }

  /** What a publisher that met the fork must show: nothing of 6 leaves signed but `root`, the tree refused, the error logged. */
  async function refused(publisher: TransparencyLog, root: string, lines: Line[]): Promise<void> {
    expect(signedCheckpointOf(await deployment.readStore.readControl()), 'the checkpoint stored').to.deep.include({ size: 6, root });
    expect(publisher.checkpoint(), 'the checkpoint served').to.deep.include({ size: 6 });
    expect(Buffer.from(publisher.checkpoint()!.root).toString('base64'), 'its root').to.equal(root);
    expect(publisher.parked()).to.equal('the first 6 events of the history give another root than the checkpoint signed for that size');
    expect(publisher.refusals()).to.equal(1);
    const errors = lines.filter((line) => line.level === 50);
    expect(errors.map(({ msg, alert, size, signed }) => ({ refused: msg.startsWith('transparency log: refused to sign'), alert, size, signed })), 'one error logged')
      .to.deep.equal([{ refused: true, alert: 'transparency log refused', size: 6, signed: 6 }]);
  }

  it('a signer running through the restore signs no other tree of a size it signed: refused, logged, counted', async () => {
    const { logger, lines } = capturingLogger<Line>();
    const copy = await fourThenCopy();
    const signer = await replica(machine('a'), logger);
    await twoMore();
    await signer.look();
    const signedBefore = await cleanRoot(deployment.events(), 6);
    expect(signer.checkpoint(), 'signed before the restore').to.deep.include({ size: 6 });

    await restoreThenFork(copy, signedBefore);
    await signer.look();
    await refused(signer, signedBefore, lines);
  });

  it('signers running through the restore, nothing appended after it, refuse the shorter history once its owner confirms it', async () => {
    const copy = await fourThenCopy();
    const a = capturingLogger<Line>();
    const b = capturingLogger<Line>();
    const signer = await replica(machine('a'), a.logger);
    const server = await replica(machine('b'), b.logger);
    await twoMore();
    await signer.look();
    await server.look();
    const signedBefore = await cleanRoot(deployment.events(), 6);

    await deployment.restore(copy);
    // The one puts its checkpoint back, the other finds it put back; the copy's own confirmation is no word either
    // saw happen (read-api/transparency/seen-confirmations.ts), its projector's next is: the history holds 4 events.
    await signer.look();
    await server.look();
    await deployment.project();
    for (const [publisher, { lines }] of [[signer, a], [server, b]] as const) {
      await publisher.look();
      expect(signedCheckpointOf(await deployment.readStore.readControl()), 'the checkpoint stored').to.deep.include({ size: 6, root: signedBefore });
      expect(publisher.parked()).to.equal('the history holds 4 events, fewer than the 6 signed before');
      expect(publisher.refusals()).to.equal(1);
      expect(lines.filter((line) => line.level === 50).map(({ alert, size, signed }) => ({ alert, size, signed })), 'one error logged')
        .to.deep.equal([{ alert: 'transparency log refused', size: 4, signed: 6 }]);
    }
  });

  it('a replica that only served the checkpoint another signed, started again after the restore, signs no other tree of its size', async () => {
    const copy = await fourThenCopy();
    const signer = await replica(machine('a'));
    const server = await replica(machine('b'));
    await twoMore();
    await signer.look();
    await server.look();
    const signedBefore = await cleanRoot(deployment.events(), 6);
    expect(server.checkpoint(), 'served before the restore, signed by the other').to.deep.include({ size: 6 });
    await Promise.all(publishers.splice(0).map((publisher) => publisher.stop()));

    await restoreThenFork(copy, signedBefore);
    const { logger, lines } = capturingLogger<Line>();
    const again = await replica(machine('b'), logger);
    await refused(again, signedBefore, lines);
  });

  it('a replica finding a checkpoint that another, on a fresh machine, signed over the restored history refuses it: no proof that it extends its own', async () => {
    const copy = await fourThenCopy();
    const signer = await replica(machine('a'));
    await twoMore();
    await signer.look();
    const signedBefore = await cleanRoot(deployment.events(), 6);
    await Promise.all(publishers.splice(0).map((publisher) => publisher.stop()));

    await restoreThenFork(copy, signedBefore);
    await appendAll(deployment.events(), serials('MORE', 2));
    await deployment.project();
    // Trust on first use (docs/api.md): nothing kept on this machine, so it signs the restored history's tree.
    const fresh = await replica(machine('c'));
    expect(fresh.checkpoint(), 'signed on a fresh machine').to.deep.include({ size: 8 });
    const { logger, lines } = capturingLogger<Line>();
    const again = await replica(machine('a'), logger);
    const reason = 'the checkpoint of 8 leaves stored does not extend the one of 6 leaves this process signed or served';
    expect(again.parked()).to.equal(reason);
    expect(again.refusals()).to.equal(1);
    expect(lines.filter((line) => line.level === 50).map(({ msg, alert, size, signed }) => ({ msg, alert, size, signed }))).to.deep.equal([{
      msg: `transparency log: refused to sign a tree of 8 leaves: ${reason}; it signs and serves nothing until the history is restored`,
      alert: 'transparency log refused', size: 8, signed: 8,
    }]);
    expect(signedBefore, 'what it kept').to.equal(checkpointFile(machine('a')).load()!.split('\n')[2]);
  });
});
