/**
 * The serial index committed by the service's checkpoints (ARCHITECTURE.md, "The serial index"): the line of a
 * checkpoint of N leaves holds the root of the index after exactly the first N events, the registry's serials
 * (registered and recovered AUTHENTIC, reported stolen STOLEN) keyed by the VRF whose secret is derived from the log
 * key (HKDF-SHA-256 of its Ed25519 seed, label `watchcat/serial-index/v1 VRF key`); the expected roots are those of
 * an index built here from the events read back from the store. A publisher started again over the same read store,
 * or over one filled again by a rebuild, holds the index of the checkpoint signed last and answers from it. A log
 * projected in part before the index's changes existed commits no index and answers no proof, with a warning naming
 * the rebuild, until it is rebuilt; nor does a log holding a serial's event this version cannot read (a newer writer's
 * theft in a shape it refuses, or an event of a type it does not know in the serial's stream).
 */
import { generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { INDEX_BUDGET_MS, indexProofs, startTransparencyLog, type TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { createMongoReadStore } from '../../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import type { EventStore, StoredEvent } from '../../../shared/ports/event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { noteText } from '../../../shared/read-model/transparency/signed-note.ts';
import { indexCommitmentOf, SerialIndex, verifyIndexAnswer } from '../../../shared/read-model/transparency/serial-index.ts';
import { vrfKey, type VrfKey } from '../../../shared/read-model/transparency/vrf.ts';
import { eventMetadata, serialRegistered, serialReportedStolen } from '../../fixtures/events.ts';
import { appendAll } from '../../projector/support/history.ts';
import { appendLargeHistory } from '../../support/large-history.ts';
import { appendAsNewerVersion } from '../../support/newer-writer.ts';
import { logProjection, logProjectionUpgradedAfter } from '../../support/signed-log.ts';
import { describeMongo } from '../../support/mongodb-leg.ts';
import { until } from '../../support/until.ts';

const ORIGIN = 'watch.example/watchcat/events';
const logger = createLogger('silent', 'checkpoint-index-test');

const expectedVrfKeys = new WeakMap<KeyObject, VrfKey>();

/**
 * The index's VRF key, derived here from the log key, its outputs kept by the test: a serial's output never changes
 * under one key, and the tests build the expected index again for every checkpoint signed.
 */
function expectedVrfKey(logKey: KeyObject): VrfKey {
  let key = expectedVrfKeys.get(logKey);
  if (key === undefined) {
    const seed = Buffer.from(logKey.export({ format: 'jwk' }).d!, 'base64url');
    const derived = vrfKey(Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), 'watchcat/serial-index/v1 VRF key', 32)));
    const outputs = new Map<string, Buffer>();
    const output = (alpha: Uint8Array) => {
      const name = Buffer.from(alpha).toString('hex');
      let kept = outputs.get(name);
      if (kept === undefined) outputs.set(name, kept = derived.output(alpha));
      return kept;
    };
    expectedVrfKeys.set(logKey, key = { ...derived, output });
  }
  return key;
}

/** The index after the first `size` events of `history`, built here from the events alone. */
function expectedIndex(history: readonly StoredEvent[], size: number, logKey: KeyObject): SerialIndex {
  const index = new SerialIndex(expectedVrfKey(logKey));
  const registered = new Set<string>();
  for (const event of history.slice(0, size)) {
    const { serial } = (event as { data?: { serial?: string } }).data ?? {};
    if (serial === undefined) continue;
    if (event.type === 'SerialRegistered') registered.add(serial);
    if (!registered.has(serial)) continue;
    if (event.type === 'SerialRegistered' || event.type === 'SerialRecovered') index.set(serial, 'AUTHENTIC');
    if (event.type === 'SerialReportedStolen') index.set(serial, 'STOLEN');
  }
  return index;
}

/** How many serials' VRF outputs take three times a look's budget (INDEX_BUDGET_MS) here, timed on ten of them, warm. */
function bulkBeyondOneLook(): number {
  const timed = vrfKey(Buffer.alloc(32, 1));
  for (let i = 0; i < 10; i += 1) timed.output(Buffer.from(`LH-W${i}`));
  // The fastest of five timings: a timing slowed by another process would size the bulk for a slower machine than
  // the looks then run on, and they could get through it in fewer looks than the test asks (seen under CI).
  let fastest = Infinity;
  for (let round = 0; round < 5; round += 1) {
    const started = performance.now();
    for (let i = 0; i < 10; i += 1) timed.output(Buffer.from(`LH-T${round}-${i}`));
    fastest = Math.min(fastest, (performance.now() - started) / 10);
  }
  return Math.ceil((3 * INDEX_BUDGET_MS) / fastest);
}

const bodyOf = (note: string) => parseCheckpoint(noteText(note));

/** `newStore`: an empty read store of the engine under test, closed after the test. */
function indexSpec(newStore: () => Promise<ReadStore>) {
  let dataDir: string;
  let events: EventStore;
  const logs: TransparencyLog[] = [];
  const logKey = generateKeyPairSync('ed25519').privateKey;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-index-'));
    events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    await appendLargeHistory(events, 45, 240);
  });
  const stores: ReadStore[] = [];
  const storeOf = async () => {
    const store = await newStore();
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.stop();
    for (const store of stores.splice(0)) await store.close();
    signed.splice(0);
    await events.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const history = async () => events.readAll({ after: 0, limit: 100_000 });
  /** Every checkpoint signed, as the publisher keeps it: those a start's index catching up signs on its way too. */
  const signed: string[] = [];
  const publish = async (readStore: ReadStore, logTo = logger) => {
    const record = { load: () => undefined, save: (note: string) => { signed.push(note); } };
    const log = await startTransparencyLog({ readStore, record, key: logKey, origin: ORIGIN, logger: logTo, intervalMs: 20 });
    logs.push(log);
    return log;
  };
  /** The checkpoint the log serves once it covers `size` leaves and commits the index. */
  const indexedCheckpoint = async (log: TransparencyLog, size: number) => {
    let note = '';
    await until(`a checkpoint of ${size} leaves committing the index`, async () => {
      const found = await log.indexAnswer('LH-S000000');
      note = found?.checkpoint.note ?? '';
      return found?.checkpoint.size === size;
    });
    return note;
  };
  const expectCommits = async (note: string) => {
    const body = bodyOf(note);
    const committed = indexCommitmentOf(body);
    expect(committed, 'the checkpoint\'s index line').to.not.equal(undefined);
    const expected = expectedIndex(await history(), body.size, logKey);
    expect(Buffer.from(committed!.root).toString('base64'), `the index after the first ${body.size} events`).to.equal(expected.root().toString('base64'));
    expect(Buffer.from(committed!.vrfPublicKey).equals(expected.vrfPublicKey)).to.equal(true);
  };

  it('commits the index after exactly the events each checkpoint counts, across new events and a restart', async () => {
    const all = await history();
    const readStore = await storeOf();
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    const first = await publish(readStore);
    const firstNote = await indexedCheckpoint(first, all.length);
    await expectCommits(firstNote);

    // A bulk of new serials (more VRF outputs than a look computes: checkpoints of what the index reached on its
    // way), then an old one stolen: each checkpoint commits the index after exactly its events. Three looks' budgets
    // of outputs at this machine's speed, so that the bulk takes several looks however fast the VRF runs here.
    const stolen = ((all.find((event) => event.type === 'SerialRegistered') as { data?: { serial: string } }).data!).serial;
    const bulk = Array.from({ length: bulkBeyondOneLook() }, (_, i) => serialRegistered(`LH-N${String(i).padStart(6, '0')}`));
    await appendAll(events, [...bulk, serialReportedStolen(stolen)]);
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    await first.look();
    const secondNote = await indexedCheckpoint(first, all.length + bulk.length + 1);
    await expectCommits(secondNote);
    expect(bodyOf(secondNote).extensions).to.not.deep.equal(bodyOf(firstNote).extensions);
    expect(signed.length, 'checkpoints signed on the index\'s way through the bulk').to.be.greaterThan(2);
    for (const note of signed) await expectCommits(note);

    // Started again over the same store: it builds the index again, checks it against the checkpoint signed last,
    // and answers from it with proofs that checkpoint's line verifies.
    await first.stop();
    const again = await publish(readStore);
    expect(await indexedCheckpoint(again, all.length + bulk.length + 1)).to.equal(secondNote);
    const committed = indexCommitmentOf(bodyOf(secondNote))!;
    // The bulk's size follows this machine's speed: its last serial, whatever it is.
    const lastOfBulk = (bulk.at(-1)!.data as { serial: string }).serial;
    for (const [serial, status] of [[stolen, 'STOLEN'], [lastOfBulk, 'AUTHENTIC'], ['ZZ-9999999', 'NOT_FOUND']] as const) {
      const found = (await again.indexAnswer(serial))!;
      expect(found.answer.status, serial).to.equal(status);
      expect(verifyIndexAnswer(committed.vrfPublicKey, committed.root, found.answer), `${serial}'s proofs`).to.equal(true);
    }
  });

  it('signs the log without the index line and answers no proof while the log was projected in part before the index\'s changes, warning once; after its rebuild, commits the index again', async () => {
    const all = await history();
    // Upgraded after the first half of the history: its first serials have no index change stored.
    const upgradedAfter = all[Math.floor(all.length / 2)]!.position;
    const early = all.find((event) => event.type === 'SerialRegistered' && event.position <= upgradedAfter) as { data: { serial: string } } | undefined;
    expect(early, 'a serial registered before the upgrade').to.not.equal(undefined);
    const readStore = await storeOf();
    await rebuild({ eventStore: events, readStore, projections: [logProjectionUpgradedAfter(upgradedAfter)] });
    const warnings: { alert?: string; msg: string }[] = [];
    const log = await publish(readStore, pino({ level: 'warn' }, { write: (line: string) => { warnings.push(JSON.parse(line) as { msg: string }); } }));

    const note = log.checkpoint()!.note;
    expect(bodyOf(note).size, 'the log signed whole').to.equal(all.length);
    expect(indexCommitmentOf(bodyOf(note)), 'the checkpoint\'s index line').to.equal(undefined);
    expect(log.indexBuilt()).to.equal(false);
    expect(await log.indexAnswer(early!.data.serial)).to.equal(undefined);
    expect(await indexProofs(log)(early!.data.serial)).to.equal('not built');
    await log.look();
    expect(warnings.filter((line) => line.alert === 'serial index not built').map((line) => line.msg.includes('watchcat rebuild --projection transparency-log')), 'one warning naming the remedy').to.deep.equal([true]);

    // Rebuilt, then one more event: its checkpoint commits the index of every event, and proves the early serial.
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    await appendAll(events, [serialRegistered('LH-AFTER-REBUILD')]);
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    await log.look();
    const rebuilt = await indexedCheckpoint(log, all.length + 1);
    await expectCommits(rebuilt);
    const committed = indexCommitmentOf(bodyOf(rebuilt))!;
    const found = (await log.indexAnswer(early!.data.serial))!;
    expect(found.answer.status).to.equal(expectedIndex(await history(), all.length + 1, logKey).answer(early!.data.serial).status);
    expect(verifyIndexAnswer(committed.vrfPublicKey, committed.root, found.answer), 'the early serial\'s proofs').to.equal(true);
    expect(log.indexBuilt()).to.equal(true);
    expect(warnings.filter((line) => line.alert === 'serial index not built')).to.have.length(1);
  });

  // A newer writer's change of a registered serial, a leaf of the log that brings no index change: its theft in a shape
  // this version refuses, or an event of a type this version does not know (a change whose meaning it cannot know).
  const newerChanges = {
    'a theft in a shape it refuses': (serial: string) => ({ type: 'SerialReportedStolen', data: { serial }, metadata: { ...eventMetadata(), occurred_at: 1_700_000_000 } }),
    'an event of a type it does not know': (serial: string) => ({ type: 'SerialTransferred', data: { serial, to: 'someone' }, metadata: eventMetadata() }),
  };
  for (const [kind, newerChange] of Object.entries(newerChanges)) {
    it(`signs without the index line once the log holds a serial's event it cannot read (${kind}): no proof says the serial clean`, async () => {
      const all = await history();
      const readStore = await storeOf();
      await rebuild({ eventStore: events, readStore, projections: [logProjection] });
      const log = await publish(readStore);
      await expectCommits(await indexedCheckpoint(log, all.length));
      const { serial } = (all.find((event) => event.type === 'SerialRegistered') as { data: { serial: string } }).data;
      const change = newerChange(serial);
      appendAsNewerVersion(join(dataDir, 'events.sqlite3'), `serial-${serial}`, [change]);
      expect((await history()).at(-1), 'the change, unreadable here').to.include({ type: change.type }).and.to.have.property('unreadable');
      await rebuild({ eventStore: events, readStore, projections: [logProjection] });
      await until('a checkpoint counting the change', async () => {
        await log.look();
        return log.checkpoint()?.size === all.length + 1;
      });
      expect(indexCommitmentOf(bodyOf(log.checkpoint()!.note)), 'its index line').to.equal(undefined);
      expect(log.indexBuilt()).to.equal(false);
      expect(await log.indexAnswer(serial)).to.equal(undefined);
      expect(await indexProofs(log)(serial)).to.equal('not built');
    });
  }

  it('commits the same index from a read store filled again by a rebuild', async () => {
    const all = await history();
    const readStore = await storeOf();
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    const note = await indexedCheckpoint(await publish(readStore), all.length);
    const refilled = await storeOf();
    await rebuild({ eventStore: events, readStore: refilled, projections: [logProjection] });
    expect(await indexedCheckpoint(await publish(refilled), all.length)).to.equal(note);
  });
}

describe('serial index: committed by the checkpoints the service signs', function () {
  this.timeout(120_000);
  describe('in memory', function () {
    indexSpec(async () => createMemoryReadStore());
  });
  describeMongo('on MongoDB', 'the serial index read from MongoDB', (leg) => {
    indexSpec(async () => createMongoReadStore(leg.url, leg.database('index')));
  });
});
