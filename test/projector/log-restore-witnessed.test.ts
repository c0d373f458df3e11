/**
 * A witnessed log (TRANSPARENCY_WITNESSES) whose read store is put back from an older copy (docs/api.md, "Stores put
 * back from a copy"): the API process puts back the newest checkpoint it kept in its DATA_DIR over the copy's older
 * one, and what it serves then must meet the witness policy it met before the restore, as a client requiring that
 * policy (`audit log watch --policy`, `receipt verify --policy`) checks it: the cosignatures it had come back with it
 * (and into a copy of that same checkpoint taken before they came, never over a larger one stored meanwhile), a line
 * that does not verify never does, and a witness it lacks is asked at once, not at the round every 30 s. The read store is an in-memory one whose whole
 * state is put back, as a MongoDB restore does; the event store stays, so the projector applies the events since the
 * copy again.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ControlDoc, ReadStore } from '../../shared/ports/read-store.ts';
import { cosignatureTime } from '../../shared/read-model/transparency/cosignature.ts';
import { parseNote, signatureLine, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { SIGNED_CHECKPOINT_ID, signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { judgeNote, parsePolicy, requirePolicy } from '../../shared/read-model/transparency/tlog-policy.ts';
import type { WitnessEndpoint } from '../../shared/read-model/transparency/witness-client.ts';
import { createProjector } from '../../projector/runner.ts';
import { checkpointFile } from '../../read-api/transparency/checkpoint-file.ts';
import { startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { controlledReadStore, type Interception } from '../support/controlled-read-store.ts';
import { restorableReadStore } from '../support/restorable-read-store.ts';
import { logProjection, servedLogRoutes } from '../support/signed-log.ts';
import { until } from '../support/until.ts';
import { witnessServers } from '../support/witness-servers.ts';
import { appendAll } from './support/history.ts';

const ORIGIN = 'watch.example/watchcat/events';
const KEY = generateKeyPairSync('ed25519').privateKey;
const serials = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => serialRegistered(`${prefix}-${String(i).padStart(4, '0')}`));

describe('transparency log: a witnessed checkpoint put back over a read store restored from an older copy', function () {
  this.timeout(30_000);
  let dir: string;
  let events: EventStore;
  let reads: ReturnType<typeof restorableReadStore>;
  let witnesses: ReturnType<typeof witnessServers>;
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const running: { stop(): Promise<void> }[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-witnessed-restore-'));
    events = openSqliteEventStore(':memory:');
    reads = restorableReadStore([logProjection.collection]);
    witnesses = witnessServers(ORIGIN, KEY);
  });
  afterEach(async () => {
    for (const one of running.splice(0)) await one.stop();
    await witnesses.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });
  after(() => queue.close());

  /** The log's projection caught up with the event store, as the projectors keep it. */
  const project = () => createProjector({ eventStore: events, readStore: reads.store, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();

  /**
   * An API process's signer as read-api/main.ts starts it, keeping its record in `dataDir` and submitting to `endpoints`,
   * the round for witnesses lacking every 30 s (the default), with its public routes; it looks when told, reading the
   * read store through `readStore`.
   */
  async function apiProcess(endpoints: WitnessEndpoint[], dataDir = dir, readStore: ReadStore = reads.store): Promise<{ log: TransparencyLog; served(): Promise<string> }> {
    const log = await startTransparencyLog({
      readStore, record: checkpointFile(dataDir), key: KEY, origin: ORIGIN, logger: pino({ level: 'silent' }), intervalMs: 60_000,
      witnesses: { witnesses: endpoints },
    });
    const routes = await servedLogRoutes(log);
    running.push({ stop: routes.close }, log);
    return {
      log,
      async served() {
        const answer = await fetch(`${routes.base}/transparency/checkpoint`);
        expect(answer.status, 'the checkpoint served').to.equal(200);
        return answer.text();
      },
    };
  }

  /** A client's policy: the log's key and both witnesses' cosignatures (`group both all w1 w2`). */
  const policyOf = (w1: string, w2: string) =>
    parsePolicy(`log ${verifierKey(ORIGIN, KEY)}\nwitness w1 ${w1}\nwitness w2 ${w2}\ngroup both all w1 w2\nquorum both\n`);

  /**
   * Four events signed and cosigned, a copy of the read store taken, two more signed and cosigned by the witnesses
   * `cosigning` names, and the process's timer look after their cosignatures came: the checkpoint served then.
   */
  async function cosignedSixAfterCopy(api: Awaited<ReturnType<typeof apiProcess>>, cosigning: WitnessEndpoint[]) {
    const cosignedBy = (note: string) => cosigning.every((witness) =>
      parseNote(note).signatures.some((signature) => cosignatureTime(parseNote(note).text, signature, witness.verifier) !== undefined));
    await until('the tree of 4 cosigned', async () => cosignedBy(await api.served()));
    const copy = reads.backup();
    await appendAll(events, serials('AFTER-COPY', 2));
    await project();
    await api.log.look();
    let before = '';
    await until('the tree of 6 cosigned', async () => {
      before = await api.served();
      return before.split('\n')[1] === '6' && cosignedBy(before);
    });
    await api.log.look();
    return { copy, before };
  }

  /** Six events projected, and witnesses w1 and w2 that answer no request until `answer()` is called. */
  async function sixEventsWitnessesHeld() {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => { answer = resolve; });
    const [one, two] = [witnesses.witness('witness.example/w1'), witnesses.witness('witness.example/w2')];
    const endpoints = [await one.serve(0, () => answered), await two.serve(0, () => answered)];
    await appendAll(events, serials('BEFORE-COPY', 6));
    await project();
    return { one, two, endpoints, answer };
  }

  /** Witnesses w1 and w2 both answering, and an API process submitting to them: `cosignedSixAfterCopy` of it. */
  async function bothWitnessesCosignedSix() {
    const [one, two] = [witnesses.witness('witness.example/w1'), witnesses.witness('witness.example/w2')];
    const endpoints = [await one.serve(), await two.serve()];
    await appendAll(events, serials('BEFORE-COPY', 4));
    await project();
    const api = await apiProcess(endpoints);
    return { one, two, endpoints, api, ...await cosignedSixAfterCopy(api, endpoints) };
  }

  it('a process running through the restore serves the checkpoint it puts back with the cosignatures it had, meeting the policy, and asks the witnesses nothing', async () => {
    const { one, two, api, copy, before } = await bothWitnessesCosignedSix();
    const policy = policyOf(one.verifierKey, two.verifierKey);
    expect(requirePolicy(policy, before).cosigners, 'before the restore').to.deep.equal(['w1', 'w2']);
    const asked = one.asked() + two.asked();

    reads.restore(copy);
    await project();
    await api.log.look();
    const after = await api.served();
    expect(after, 'the very checkpoint served before the restore, its cosignatures included').to.equal(before);
    expect(requirePolicy(policy, after).cosigners).to.deep.equal(['w1', 'w2']);
    await api.log.stop();
    expect(one.asked() + two.asked(), 'no witness asked again: none lacking').to.equal(asked);
  });

  it('a process started again after the restore serves, from its first answer, the checkpoint it kept with its cosignatures', async () => {
    const { one, two, endpoints, copy, before } = await bothWitnessesCosignedSix();
    for (const stopping of running.splice(0)) await stopping.stop();

    reads.restore(copy);
    await project();
    const again = await apiProcess(endpoints);
    const after = await again.served();
    expect(after).to.equal(before);
    expect(requirePolicy(policyOf(one.verifierKey, two.verifierKey), after).cosigners).to.deep.equal(['w1', 'w2']);
  });

  it('asks a witness the kept checkpoint lacks (down when it was signed) at the put-back, not at the round 30 s later', async () => {
    const [one, late] = [witnesses.witness('witness.example/w1'), witnesses.witness('witness.example/late')];
    const closed = createServer();
    const downPort = Number(new URL(await witnesses.listening(closed)).port);
    await new Promise((resolve) => closed.close(resolve));
    const up = await one.serve();
    await appendAll(events, serials('BEFORE-COPY', 4));
    await project();
    const api = await apiProcess([up, { url: `http://127.0.0.1:${downPort}`, verifier: late.verifier }]);
    const { copy, before } = await cosignedSixAfterCopy(api, [up]);
    const policy = policyOf(one.verifierKey, late.verifierKey);
    expect(judgeNote(policy, before).cosigners, 'before the restore: the late witness was down').to.deep.equal(['w1']);
    await late.serve(downPort);

    reads.restore(copy);
    await project();
    await api.log.look();
    await until('the late witness cosigned the checkpoint put back', async () => judgeNote(policy, await api.served()).quorum, 3_000);
    expect(late.asked(), 'one request, from the empty tree it holds').to.equal(1);
  });

  it('puts the cosignatures it kept back into a copy taken of the same checkpoint before they came', async () => {
    const { one, two, endpoints, answer } = await sixEventsWitnessesHeld();
    const api = await apiProcess(endpoints);
    await until('both witnesses asked', () => one.asked() === 1 && two.asked() === 1);
    const copy = reads.backup();
    expect(parseNote(signedCheckpointOf(copy.control)!.note).signatures, 'the copy: the log\'s signature alone').to.have.length(1);
    answer();
    let before = '';
    await until('cosigned', async () => {
      before = await api.served();
      return judgeNote(policyOf(one.verifierKey, two.verifierKey), before).quorum;
    });
    await api.log.look();

    reads.restore(copy);
    await project();
    await api.log.look();
    expect(await api.served(), 'served as before the restore').to.equal(before);
    await api.log.stop();
    expect(one.asked() + two.asked(), 'no witness asked again').to.equal(2);
  });

  it('gives the cosignatures back to the store\'s note only while it stands: a larger checkpoint another process stored meanwhile is never taken back', async () => {
    const { one, two, endpoints, answer } = await sixEventsWitnessesHeld();
    const steered = controlledReadStore(reads.store);
    const api = await apiProcess(endpoints, dir, steered.store);
    await until('both witnesses asked', () => one.asked() === 1 && two.asked() === 1);
    const copy = reads.backup();
    answer();
    await until('cosigned', async () => judgeNote(policyOf(one.verifierKey, two.verifierKey), await api.served()).quorum);
    await api.log.look();

    reads.restore(copy);
    // Another machine's process (no witness of its own) keeps the copy's checkpoint of 6, then the log grows by two.
    const other = await apiProcess([], join(dir, 'other'));
    await appendAll(events, serials('AFTER-RESTORE', 2));
    await project();
    const ofCheckpoint = ({ args }: { args: readonly unknown[] }) => (args[0] as ControlDoc)._id === SIGNED_CHECKPOINT_ID;
    // Between the process's read of the copy's note and its compare-and-set giving the cosignatures back, the other
    // signs and stores the tree of 8; what a reader finds after each write of the process is noted.
    const between: Interception = { method: 'setControl', times: 1, when: ofCheckpoint, run: () => other.log.look() };
    const sizes: number[] = [];
    steered.intercept(between);
    steered.intercept({
      method: 'setControl', stage: 'after', when: ofCheckpoint,
      run: async () => { sizes.push(signedCheckpointOf(await reads.store.readControl())!.size); },
    });
    await api.log.look();
    expect(between.times, 'stored by the other in between').to.equal(0);
    expect(sizes, 'the checkpoint a reader finds after each write').to.have.length.above(0);
    expect(sizes.filter((size) => size !== 8), 'never the tree of 6 again').to.deep.equal([]);
    await api.log.look();
    expect(await api.served(), 'the other\'s checkpoint of 8').to.equal(other.log.checkpoint()!.note);
  });

  it('keeps no line that does not verify as a witness\'s cosignature of the kept checkpoint, and puts none back', async () => {
    const { api, copy, before } = await bothWitnessesCosignedSix();
    // In the store, w2's line replaced by one of its name and key id over other bytes, and a line of a witness the
    // process does not know added: neither is a cosignature it can check.
    const stored = signedCheckpointOf(await reads.store.readControl())!;
    expect(await reads.store.setControl({ ...stored, note: tampered(stored.note) }, { note: stored.note }, false)).to.equal(true);
    await api.log.look();

    reads.restore(copy);
    await project();
    await api.log.look();
    await api.log.stop();
    const after = signedCheckpointOf(await reads.store.readControl())!.note;
    expect(after, 'put back as kept before the lines were tampered with').to.equal(before);
    expect(checkpointFile(dir).load()).to.equal(before);
  });
  /** `note` with w2's line over other bytes (its name and key id) and a line of a witness no process knows. */
  const tampered = (note: string): string => {
    const { text, signatures } = parseNote(note);
    const forged = signatures.map((signature) => (signature.name === 'witness.example/w2' ? { ...signature, signature: Buffer.alloc(72, 7) } : signature));
    const unknown = { name: 'witness.example/unknown', id: Buffer.alloc(4, 1), signature: Buffer.alloc(72, 1) };
    return `${text}\n${[...forged, unknown].map(signatureLine).join('')}`;
  };
  /** `note` with its lines but w2's. */
  const withoutW2 = (note: string): string => {
    const { text, signatures } = parseNote(note);
    return `${text}\n${signatures.filter((signature) => signature.name !== 'witness.example/w2').map(signatureLine).join('')}`;
  };

  /**
   * Two witnesses, w2 answering only while `open` (held otherwise, so that it cosigns nothing again while the test
   * looks at what was put back), four events then six signed and cosigned, the copy taken between.
   */
  async function cosignedWithW2Held() {
    let held: Promise<void> = Promise.resolve();
    let open = () => undefined as void;
    const [one, two] = [witnesses.witness('witness.example/w1'), witnesses.witness('witness.example/w2')];
    const endpoints = [await one.serve(), await two.serve(0, () => held)];
    await appendAll(events, serials('BEFORE-COPY', 4));
    await project();
    const signer = await apiProcess(endpoints);
    const { copy, before } = await cosignedSixAfterCopy(signer, endpoints);
    held = new Promise((resolve) => { open = resolve; });
    return { endpoints, signer, copy, before, two, open: () => open() };
  }

  it('keeps another process\'s checkpoint with the log\'s signature and the cosignatures that verify, no other line', async () => {
    const { endpoints, signer, copy, before, open } = await cosignedWithW2Held();
    await signer.log.stop();
    const stored = signedCheckpointOf(await reads.store.readControl())!;
    expect(await reads.store.setControl({ ...stored, note: tampered(stored.note) }, { note: stored.note }, false)).to.equal(true);
    // Another machine's process, which kept the checkpoint of 4 leaves, takes the one of 6 the first signed.
    const other = join(dir, 'other');
    checkpointFile(other).save(signedCheckpointOf(copy.control)!.note);
    const server = await apiProcess(endpoints, other);
    await server.log.look();
    expect(checkpointFile(other).load(), 'kept').to.equal(withoutW2(before));

    reads.restore(copy);
    await project();
    await server.log.look();
    expect(await server.served(), 'put back').to.equal(withoutW2(before));
    open();
  });

  it('puts back no line that does not verify from a record an earlier version kept without checking it', async () => {
    const { endpoints, copy, before, open } = await cosignedWithW2Held();
    for (const stopping of running.splice(0)) await stopping.stop();
    const unchecked = join(dir, 'unchecked');
    checkpointFile(unchecked).save(tampered(before));

    reads.restore(copy);
    await project();
    const again = await apiProcess(endpoints, unchecked);
    expect(await again.served()).to.equal(withoutW2(before));
    open();
  });
});
