/**
 * The log's side of the witnesses (docs/audit.md, "Witnesses"; TRANSPARENCY_WITNESSES): each new checkpoint is
 * submitted to the witnesses configured and served with the cosignatures they answer, as extra signature lines that
 * Go's note.Open leaves aside while it opens the log's own signature (today's readers keep working). A witness that
 * hangs or is down holds up neither signing nor serving, and its cosignature is added when it comes back; a witness
 * that refuses (it holds another tree) adds nothing, and the refusal is logged.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { cosignatureTime } from '../../../shared/read-model/transparency/cosignature.ts';
import { isBy, openNote, parseNote, signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { requestCosignature, type WitnessEndpoint } from '../../../shared/read-model/transparency/witness-client.ts';
import { startTransparencyLog, type TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../../read-api/transparency/transparency-routes.ts';
import { startWitnessCosigning, type WitnessCosigning } from '../../../read-api/transparency/witness-cosigning.ts';
import { createProjector } from '../../../projector/runner.ts';
import { openTrusted } from '../../../services/audit/log-key-trust.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { askGo, buildGoTlog } from '../../support/go-tlog.ts';
import { cannotRun } from '../../support/legs.ts';
import { logProjection, signedLogOf } from '../../support/signed-log.ts';
import { until } from '../../support/until.ts';
import { witnessServers } from '../../support/witness-servers.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('transparency log: checkpoints submitted to witnesses and served with their cosignatures', function () {
  this.timeout(120_000);
  const logKey = generateKeyPairSync('ed25519').privateKey;
  let events: EventStore;
  const { listening, witness: ourWitness, close } = witnessServers(ORIGIN, logKey);
  const logs: TransparencyLog[] = [];
  const cosignings: WitnessCosigning[] = [];
  beforeEach(async () => {
    events = openSqliteEventStore(':memory:');
    for (let i = 0; i < 6; i += 1) await events.append(`serial-SN-${i}`, [serialRegistered(`SN-00${i}`)], 'no_stream');
  });
  afterEach(async () => {
    for (const cosigning of cosignings.splice(0)) await cosigning.stop();
    for (const log of logs.splice(0)) await log.stop();
    await close();
    await events.close();
  });

  const served = async (log: TransparencyLog): Promise<() => Promise<string>> => {
    const base = await listening(createServer(new Koa().use(transparencyRoutes(log)).callback()));
    return async () => (await fetch(`${base}/transparency/checkpoint`)).text();
  };
  const cosignedBy = (note: string, witness: WitnessEndpoint): boolean => {
    const { text, signatures } = parseNote(note);
    return signatures.some((signature) => cosignatureTime(text, signature, witness.verifier) !== undefined);
  };

  it('serves the checkpoint with each witness\'s cosignature, which Go\'s note.Open and the monitor leave aside', async function () {
    const witnesses = [await ourWitness('witness.example/w1').serve(), await ourWitness('witness.example/w2').serve()];
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses });
    logs.push(log);
    const checkpoint = await served(log);
    let note = '';
    await until('both cosignatures served', async () => {
      note = await checkpoint();
      return witnesses.every((witness) => cosignedBy(note, witness));
    });
    expect(parseNote(note).signatures.map((signature) => signature.name)).to.deep.equal([ORIGIN, 'witness.example/w1', 'witness.example/w2']);
    // The tree, and the serial index's line (serial-index.ts), under the log's signature.
    expect(openNote(note, verifierKey(ORIGIN, logKey))).to.equal(`${ORIGIN}\n6\n${note.split('\n')[2]}\n${note.split('\n')[3]}\n`);
    expect(note.split('\n')[3]).to.match(/^watchcat\/serial-index\/v1 /);
    expect((await openTrusted(note, [verifierKey(ORIGIN, logKey)], async () => [])).learned).to.deep.equal([]);
    const built = await buildGoTlog();
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    const go = await askGo(built.program, {
      entries: [], inclusion: [], consistency: [], notes: [], verifier_key: verifierKey(ORIGIN, logKey), tiles: [],
      keyed_notes: [{ note, verifier_key: verifierKey(ORIGIN, logKey) }],
    });
    expect(go.keyed_notes[0]).to.deep.include({ error: '', origin: ORIGIN, size: 6, verified: 1, unverified: 2 });
  });

  it('signs and serves while one witness hangs and another is down, and adds the late one\'s cosignature when it is back', async () => {
    const hanging: WitnessEndpoint = { url: await listening(createServer(() => undefined)), verifier: ourWitness('witness.example/hang').verifier };
    const closed = createServer();
    const downPort = Number(new URL(await listening(closed)).port);
    await new Promise((resolve) => closed.close(resolve));
    const lateOne = ourWitness('witness.example/late');
    const late: WitnessEndpoint = { url: `http://127.0.0.1:${downPort}`, verifier: lateOne.verifier };
    const up = await ourWitness('witness.example/up').serve();
    const started = performance.now();
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses: [hanging, late, up], timeoutMs: 2_000, retryMs: 300 });
    logs.push(log);
    const checkpoint = await served(log);
    expect(await checkpoint()).to.match(new RegExp(`^${ORIGIN}\\n6\\n`));
    expect(performance.now() - started, 'signed and served before the hanging witness\'s deadline').to.be.below(2_000);
    await until('the witness that is up cosigned, before the hanging one\'s deadline', async () => cosignedBy(await checkpoint(), up), 1_500);
    expect(cosignedBy(await checkpoint(), late)).to.equal(false);
    await lateOne.serve(downPort);
    await until('the late witness cosigned on a retry', async () => cosignedBy(await checkpoint(), late), 10_000);
    expect(cosignedBy(await checkpoint(), up), 'the earlier cosignature kept').to.equal(true);
  });

  it('serves no cosignature of a witness that refuses (it holds another tree of that size), and logs why', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
    const forked = { size: 6, root: Buffer.alloc(32, 1).toString('base64'), note: '' };
    const refusing = await ourWitness('witness.example/forked', forked).serve();
    const honest = await ourWitness('witness.example/honest').serve();
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses: [refusing, honest] }, logger);
    logs.push(log);
    const checkpoint = await served(log);
    await until('the honest witness cosigned', async () => cosignedBy(await checkpoint(), honest));
    await until('the refusal logged', () => lines.some((line) => line.includes('witness.example/forked did not cosign the tree of 6 leaves')));
    expect(cosignedBy(await checkpoint(), refusing)).to.equal(false);
    expect(lines.find((line) => line.includes('witness.example/forked'))).to.include('"status":422');
  });

  describe('each round', () => {
    const silent = createLogger('silent', 'cosigning');
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const storedNote = async (readStore: ReadStore): Promise<string> => signedCheckpointOf(await readStore.readControl())!.note;
    const cosigningOf = (options: Parameters<typeof startWitnessCosigning>[0]): WitnessCosigning => {
      const cosigning = startWitnessCosigning(options);
      cosignings.push(cosigning);
      return cosigning;
    };
    /** A log signed by a publisher with no witnesses, so that the cosigning under test is the only one. */
    const plainLog = async (): Promise<ReadStore> => {
      const { log, readStore } = await signedLogOf(events, logKey, ORIGIN);
      logs.push(log);
      return readStore;
    };

    it('asks a witness that cosigned the checkpoint nothing more at the rounds after (one request to each witness lacking)', async () => {
      const witness = ourWitness('witness.example/once');
      const endpoint = await witness.serve();
      const readStore = await plainLog();
      cosigningOf({ readStore, witnesses: [endpoint], logger: silent, retryMs: 20 });
      await until('cosigned', async () => cosignedBy(await storedNote(readStore), endpoint));
      await sleep(300);
      expect(witness.asked(), 'fifteen rounds later').to.equal(1);
    });

    it('asks nothing and warns of nothing before the log has a checkpoint', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
      const witness = ourWitness('witness.example/early');
      const endpoint = await witness.serve();
      const cosigning = cosigningOf({ readStore: createMemoryReadStore(), witnesses: [endpoint], logger, retryMs: 20 });
      await sleep(200);
      await cosigning.stop();
      expect(lines).to.deep.equal([]);
      expect(witness.asked()).to.equal(0);
    });

    it('asks nothing more once stopped: the round under way ends, no other starts', async () => {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => { answer = resolve; });
      const refusing = ourWitness('witness.example/forked', { size: 6, root: Buffer.alloc(32, 1).toString('base64'), note: '' });
      const endpoint = await refusing.serve(0, () => answered);
      const cosigning = cosigningOf({ readStore: await plainLog(), witnesses: [endpoint], logger: silent, retryMs: 20 });
      await until('the witness asked', () => refusing.asked() === 1);
      await sleep(100);
      const stopped = cosigning.stop();
      answer();
      await stopped;
      // The round's two requests (witness-client.ts): from 0, answered 409 with 6, then from 6, refused.
      expect(refusing.asked(), 'the requests of the round under way').to.equal(2);
      await sleep(200);
      expect(refusing.asked(), 'none after the stop').to.equal(2);
    });

    it('submits a grown checkpoint from the size the witness cosigned, with the consistency proof, in one request', async () => {
      const readStore = createMemoryReadStore();
      const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
      const project = () => createProjector({ eventStore: events, readStore, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
      try {
        await project();
        const log = await startTransparencyLog({ readStore, key: logKey, origin: ORIGIN, logger: silent });
        logs.push(log);
        const witness = ourWitness('witness.example/grown');
        const endpoint = await witness.serve();
        const cosigning = cosigningOf({ readStore, witnesses: [endpoint], logger: silent });
        await until('the tree of 6 cosigned', async () => cosignedBy(await storedNote(readStore), endpoint));
        for (const serial of ['SN-006', 'SN-007']) await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
        await project();
        await log.look();
        expect(log.checkpoint()?.size).to.equal(8);
        cosigning.submit();
        await until('the tree of 8 cosigned', async () => cosignedBy(await storedNote(readStore), endpoint));
        expect(witness.asked(), 'one request for each tree, the second from 6 (no 409)').to.equal(2);
      } finally {
        await queue.close();
      }
    });

    it('adds no cosignature to a newer checkpoint stored while the witness answered for the older one', async () => {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => { answer = resolve; });
      const witness = ourWitness('witness.example/slow');
      const endpoint = await witness.serve(0, () => answered);
      const readStore = await plainLog();
      const cosigning = cosigningOf({ readStore, witnesses: [endpoint], logger: silent });
      await until('the witness asked', () => witness.asked() === 1);
      // Another process stores the checkpoint of a larger tree meanwhile.
      const older = signedCheckpointOf(await readStore.readControl())!;
      const newer = signedCheckpointDoc(signNote(`${ORIGIN}\n7\n${Buffer.alloc(32, 7).toString('base64')}\n`, ORIGIN, logKey));
      expect(await storeSignedCheckpoint(readStore, newer, older)).to.equal(true);
      answer();
      await cosigning.stop();
      expect(await storedNote(readStore)).to.equal(newer.note);
    });

    it('keeps the line another process merged between its read of the note and its write (compare-and-set)', async () => {
      const first = await ourWitness('witness.example/first').serve();
      const other = await ourWitness('witness.example/other').serve();
      const readStore = await plainLog();
      const { note, size } = signedCheckpointOf(await readStore.readControl())!;
      const outcome = await requestCosignature(other, { note, size, oldSize: 0, proofOf: async () => [], timeoutMs: 5_000 });
      if (!outcome.cosigned) throw new Error(`the other witness did not cosign: ${outcome.reason}`);
      let raced = false;
      const racing: ReadStore = {
        ...readStore,
        setControl: async (doc, condition, insertIfAbsent) => {
          if (!raced) {
            raced = true;
            const stored = signedCheckpointOf(await readStore.readControl())!;
            await readStore.setControl({ ...stored, note: `${stored.note}${outcome.line}` }, { note: stored.note }, false);
          }
          return readStore.setControl(doc, condition, insertIfAbsent);
        },
      };
      const cosigning = cosigningOf({ readStore: racing, witnesses: [first], logger: silent });
      await until('the first witness asked and its line merged', () => raced);
      await cosigning.stop();
      const merged = await storedNote(readStore);
      expect([cosignedBy(merged, first), cosignedBy(merged, other)]).to.deep.equal([true, true]);
    });

    it('gives up merging after MERGE_TRIES (5) writes while the note keeps changing under it, and the round ends', async () => {
      const witness = await ourWitness('witness.example/busy').serve();
      const readStore = await plainLog();
      let writes = 0;
      // Each write refused, as when another process changed the note since the read; a turn of the event loop each.
      const changing: ReadStore = { ...readStore, setControl: async () => { await new Promise(setImmediate); writes += 1; return false; } };
      const cosigning = cosigningOf({ readStore: changing, witnesses: [witness], logger: silent });
      await until('a merge tried', () => writes > 0);
      const ended = await Promise.race([cosigning.stop().then(() => true), sleep(2_000).then(() => false)]);
      expect(ended, 'the round ended').to.equal(true);
      expect(writes).to.equal(5);
      expect(isBy(parseNote(await storedNote(readStore)).signatures.at(-1)!, witness.verifier), 'nothing stored').to.equal(false);
    });
  });
});
