/**
 * When an API process looks at the transparency log (read-api/transparency/log-publisher.ts): at each period while
 * `lookAfterMs` says 0, and otherwise (the projectors' word heard, read-api/main.ts) only when told the log moved,
 * or once the last look is that old. A grown log is signed at the look that finds it (README, "Transparency log":
 * a checkpoint within a second of an append).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import { startTransparencyLog, type TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { createProjector } from '../../../projector/runner.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { appendAll, catalogueHistory } from '../../projector/support/history.ts';
import { logProjection, logProjectionUpgradedAfter } from '../../support/signed-log.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { until } from '../../support/until.ts';
import { parseNote, signNote, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { indexCommitmentOf, indexExtension, verifyIndexAnswer } from '../../../shared/read-model/transparency/serial-index.ts';
import { signedCheckpointDoc, storeSignedCheckpoint } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { indexVrfKey } from '../../../read-api/transparency/checkpoint-index.ts';

describe('transparency log: when an API process looks at the log', () => {
  it('looks at each period while told 0, then only when told the log moved or once its last look is that old', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const readStore = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const project = () => createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
    let lookAfterMs = 0;
    let log: TransparencyLog | undefined;
    try {
      const first = await appendAll(eventStore, catalogueHistory(2));
      await project();
      log = await startTransparencyLog({
        readStore, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/log', logger: createLogger('silent', 'look-test'),
        intervalMs: 10, lookAfterMs: () => lookAfterMs,
      });
      const signed = log;
      expect(signed.checkpoint()?.size, 'signed at the start').to.equal(first);

      const second = await appendAll(eventStore, [serialRegistered('LOOK-0001')]);
      await project();
      await until('signed by a look of the timer', () => signed.checkpoint()?.size === second);

      lookAfterMs = 60_000;
      const third = await appendAll(eventStore, [serialRegistered('LOOK-0002')]);
      await project();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(signed.checkpoint()?.size, 'twenty periods later, the last look under a minute old').to.equal(second);
      await signed.look();
      expect(signed.checkpoint()?.size, 'told the log moved').to.equal(third);

      lookAfterMs = 150;
      const fourth = await appendAll(eventStore, [serialRegistered('LOOK-0003')]);
      await project();
      await until('signed once the last look is 150 ms old', () => signed.checkpoint()?.size === fourth);
    } finally {
      await log?.stop();
      await queue.close();
      await eventStore.close();
    }
  });

  it('begins no read once stop() is called, not even for a look asked while the one under way was reading', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const store = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    let log: TransparencyLog | undefined;
    // The store the publisher reads: a snapshot waits for release() while `hold`, and a read begun after stop() was
    // called is counted (the look under way had begun its one read before).
    let hold = false;
    let held = false;
    let release = () => {};
    let stopCalled = false;
    let readsAfterStop = 0;
    const readStore = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (stopCalled) readsAfterStop += 1;
          if (name === 'snapshot' && hold) {
            held = true;
            await new Promise<void>((resolve) => { release = resolve; });
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as ReadStore;
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await createProjector({ eventStore, readStore: store, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
      log = await startTransparencyLog({
        readStore, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/log', logger: createLogger('silent', 'look-test'),
        intervalMs: 60_000, lookAfterMs: () => 60_000,
      });
      hold = true;
      const underWay = log.look();
      await until('a look is reading', () => held);
      const askedMeanwhile = log.look();
      stopCalled = true;
      const stopping = log.stop();
      hold = false;
      release();
      await stopping;
      await Promise.all([underWay, askedMeanwhile]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readsAfterStop, 'store reads begun once stop() was called').to.equal(0);
      log = undefined;
    } finally {
      await log?.stop();
      await queue.close();
      await eventStore.close();
    }
  });
});

/** An event store whose history the log's projection writes into a memory read store (`project`); `close` ends both. */
function logHistory() {
  const eventStore = openSqliteEventStore(':memory:');
  const readStore = createMemoryReadStore();
  const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
  const project = () => createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
  const close = async () => {
    await queue.close();
    await eventStore.close();
  };
  return { eventStore, readStore, project, close };
}

/**
 * A follower started over a log of two catalogue events and one serial, whose whole tree another process signed with
 * `key` and `extensions`: its index answer for that serial, and the lines it logged.
 */
async function followOverSignedTree(key: KeyObject, extensions: string[]) {
  const { eventStore, readStore, project, close } = logHistory();
  const origin = 'watch.example/log';
  const lines: { level: number; msg: string; alert?: string }[] = [];
  let follower: TransparencyLog | undefined;
  try {
    await appendAll(eventStore, catalogueHistory(2));
    await appendAll(eventStore, [serialRegistered('FOLLOW-0001')]);
    await project();
    const log = await TileLog.read(await readStore.snapshot());
    const body = checkpointBody({ origin, size: log.size, root: await log.root(log.size), extensions });
    expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signNote(body, origin, key)), undefined)).to.equal(true);
    follower = await startTransparencyLog({
      readStore, key, origin, intervalMs: 600_000,
      logger: pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as (typeof lines)[number]); } }),
    });
    expect(follower.checkpoint()?.size, 'the checkpoint served').to.equal(log.size);
    return { answer: await follower.indexAnswer('FOLLOW-0001'), lines };
  } finally {
    await follower?.stop();
    await close();
  }
}

describe('transparency log: what a publisher logs and serves of itself', () => {
  /** A publisher over a log of two events, its log lines kept; `readStore` wraps the store when given. */
  async function publisher(wrap: (store: ReadStore) => ReadStore = (store) => store) {
    const history = logHistory();
    const size = await appendAll(history.eventStore, catalogueHistory(2));
    await history.project();
    const lines: { level: number; msg: string; err?: { message: string } }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as (typeof lines)[number]); } });
    const key = generateKeyPairSync('ed25519').privateKey;
    const log = await startTransparencyLog({ readStore: wrap(history.readStore), key, origin: 'watch.example/log', logger, intervalMs: 10 });
    const close = async () => {
      await log.stop();
      await history.close();
    };
    return { log, lines, key, size, close };
  }

  it('with no witnesses set, signs and looks again without a warning or an error', async () => {
    const { log, lines, size, close } = await publisher();
    try {
      expect(log.checkpoint()?.size).to.equal(size);
      await log.look();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines.filter((line) => line.level >= 40)).to.deep.equal([]);
    } finally {
      await close();
    }
  });

  it('logs a look that failed as a warning with its error; the checkpoint it served stays served', async () => {
    let failNext = false;
    const { log, lines, size, close } = await publisher((store) => ({
      ...store,
      snapshot: async () => {
        if (failNext) {
          failNext = false;
          throw new Error('read store gone for a moment');
        }
        return store.snapshot();
      },
    }));
    try {
      failNext = true;
      await until('a failed look logged', () => lines.some((line) => line.level === 40));
      const warning = lines.find((line) => line.level === 40)!;
      expect(warning.msg).to.equal('transparency log: could not look at the log or sign a checkpoint');
      expect(warning.err?.message).to.equal('read store gone for a moment');
      await log.look();
      expect(log.checkpoint()?.size, 'served as before').to.equal(size);
    } finally {
      await close();
    }
  });

  it('given no key history, serves its own key alone, valid from its start', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { log, key, close } = await publisher();
    const after = Math.ceil(Date.now() / 1000);
    try {
      const { keys } = JSON.parse(log.keyHistory) as { keys: { verifier_key: string; nbf: number }[] };
      expect(keys.map((entry) => entry.verifier_key)).to.deep.equal([verifierKey('watch.example/log', key)]);
      expect(keys[0]!.nbf).to.be.within(before, after);
    } finally {
      await close();
    }
  });
});

describe('transparency log: a process that follows checkpoints another one signs', () => {
  it('proves the serials of a bulk another process signed once its index catches up, look after look, within its budget', async function () {
    this.timeout(60_000);
    const { eventStore, readStore, project, close } = logHistory();
    const key = generateKeyPairSync('ed25519').privateKey;
    const start = (intervalMs: number) => startTransparencyLog({ readStore, key, origin: 'watch.example/log', logger: createLogger('silent', 'follow-test'), intervalMs });
    let signer: TransparencyLog | undefined;
    let follower: TransparencyLog | undefined;
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await project();
      // Both start over the same log, each building its index whole at its start; only the signer looks on its own.
      signer = await start(10);
      follower = await start(600_000);
      // A bulk of new serials: each a VRF evaluation, far more than one look's budget (100 ms) of them.
      const bulk = Array.from({ length: 150 }, (_, i) => `FOLLOW-${String(i).padStart(4, '0')}`);
      const size = await appendAll(eventStore, bulk.map((serial) => serialRegistered(serial)));
      await project();
      const signing = signer;
      await until('the signer signed the whole bulk', () => signing.checkpoint()?.size === size, 30_000);
      // The follower's looks find that tree signed by the other: each goes a budget further with its index.
      const following = follower;
      const last = bulk.at(-1)!;
      let proved: Awaited<ReturnType<TransparencyLog['indexAnswer']>>;
      await until('the follower proves the bulk\'s last serial', async () => {
        // As the projectors' word that the log moved would have it look.
        await following.look();
        proved = await following.indexAnswer(last);
        return proved?.checkpoint.size === size;
      }, 30_000);
      expect(proved!.answer.status).to.equal('AUTHENTIC');
    } finally {
      await signer?.stop();
      await follower?.stop();
      await close();
    }
  });

  it('proves nothing from a checkpoint another process signed whose index line commits another index than its own, and logs it', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    // The log's whole tree, signed with the log key, its index line committing a root no index of this log has.
    const { answer, lines } = await followOverSignedTree(key, [indexExtension({ root: Buffer.alloc(32, 7), vrfPublicKey: indexVrfKey(key).publicKey })]);
    expect(answer, 'no proof against an index this process cannot rebuild').to.equal(undefined);
    expect(lines.filter((line) => line.level === 50).map((line) => line.alert)).to.deep.equal(['serial index differs']);
  });

  for (const [unconfirmed, without] of [['no head confirmed yet', 'absent'], ['its confirmation cleared', 'null']] as const) {
    it(`follows no checkpoint signed past the tiles it reads (${unconfirmed}): no warning, no index at a size it does not hold, and proves once its tiles get there`, async () => {
      const key = generateKeyPairSync('ed25519').privateKey;
      const origin = 'watch.example/log';
      const { eventStore, readStore, project, close } = logHistory();
      // Another read store, further on: the store a signer read (a replica of the database ahead of this one's).
      const ahead = createMemoryReadStore();
      const aheadQueue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
      const lines: { level: number; alert?: string }[] = [];
      let signer: TransparencyLog | undefined;
      let follower: TransparencyLog | undefined;
      try {
        await appendAll(eventStore, catalogueHistory(2));
        const behind = await appendAll(eventStore, Array.from({ length: 20 }, (_, i) => serialRegistered(`BEHIND-${String(i).padStart(4, '0')}`)));
        await project();
        // Its projection's checkpoint as a store filled again leaves it, no head confirmed: a tree short of the signed
        // one is catching up, not refused.
        const { confirmed: _confirmed, ...logCheckpoint } = (await readStore.readControl()).find((doc) => doc['projection'] === 'transparency-log' && doc._id.startsWith('checkpoint:'))!;
        const unconfirmedCheckpoint = without === 'null' ? { ...logCheckpoint, confirmed: null } : logCheckpoint;
        expect(await readStore.setControl(unconfirmedCheckpoint, { position: logCheckpoint['position'] }, false)).to.equal(true);
        const all = await appendAll(eventStore, Array.from({ length: 20 }, (_, i) => serialRegistered(`AHEAD-${String(i).padStart(4, '0')}`)));
        await createProjector({ eventStore, readStore: ahead, queue: aheadQueue, logger: pino({ level: 'silent' }), projections: [logProjection] }).catchUp();
        signer = await startTransparencyLog({ readStore: ahead, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'ahead') });
        const signed = signer.checkpoint()!;
        expect([(await TileLog.read(await readStore.snapshot())).size, signed.size], 'the tiles read, the tree signed').to.deep.equal([behind, all]);
        expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signed.note), undefined)).to.equal(true);

        follower = await startTransparencyLog({
          readStore, key, origin, intervalMs: 600_000,
          logger: pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as (typeof lines)[number]); } }),
        });
        await follower.look();
        expect(await follower.indexAnswer('BEHIND-0001'), 'no proof before its tiles hold the signed tree').to.equal(undefined);
        await project();
        await follower.look();
        const proved = await follower.indexAnswer('AHEAD-0019');
        expect(proved?.checkpoint.size, 'proved at the signed tree once its tiles hold it').to.equal(all);
        expect(verifyIndexAnswer(indexVrfKey(key).publicKey, indexCommitmentOf(parseCheckpoint(signed.note.slice(0, signed.note.indexOf('\n\n') + 1)))!.root, proved!.answer)).to.equal(true);
        expect(lines.filter((line) => line.level >= 40), 'warnings and alarms').to.deep.equal([]);
      } finally {
        await signer?.stop();
        await follower?.stop();
        await aheadQueue.close();
        await close();
      }
    });
  }

  it('with its log not built, raises no alarm over a checkpoint another process signed with an index line, and proves nothing from it', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/log';
    const { eventStore, readStore, close } = logHistory();
    const built = createMemoryReadStore();
    const lines: { level: number; msg: string }[] = [];
    let signer: TransparencyLog | undefined;
    let follower: TransparencyLog | undefined;
    try {
      await appendAll(eventStore, Array.from({ length: 3 }, (_, i) => serialRegistered(`UNBUILT-${i}`)));
      await appendAll(eventStore, catalogueHistory(2));
      // This store's log projected in part by the version before the index's changes (the first serial's change is
      // missing); another store's from the start.
      const first = (await eventStore.readAll({ after: 0, limit: 1 }))[0]!.position;
      await rebuild({ eventStore, readStore, projections: [logProjectionUpgradedAfter(first)] });
      await rebuild({ eventStore, readStore: built, projections: [logProjection] });
      signer = await startTransparencyLog({ readStore: built, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'built') });
      const signed = signer.checkpoint()!;
      expect(indexCommitmentOf(parseCheckpoint(parseNote(signed.note).text)), 'signed with an index line').to.not.equal(undefined);
      expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signed.note), undefined)).to.equal(true);

      follower = await startTransparencyLog({
        readStore, key, origin, intervalMs: 600_000,
        logger: pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as (typeof lines)[number]); } }),
      });
      await follower.look();
      await follower.look();
      expect(follower.indexBuilt()).to.equal(false);
      expect(await follower.indexAnswer('UNBUILT-0'), 'no proof from a log not built').to.equal(undefined);
      expect(lines.filter((line) => line.level >= 50).map((line) => line.msg), 'errors').to.deep.equal([]);
    } finally {
      await signer?.stop();
      await follower?.stop();
      await close();
    }
  });

  it('answers, while a look reads a newer checkpoint, with the checkpoint its index stands at, not the newer one', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/log';
    const { eventStore, readStore, project, close } = logHistory();
    // The follower's reads of tiles wait, once the gate is shut, after the first read of each snapshot (the edge that
    // TileLog.read takes): a look is then held after it has read the newer checkpoint and before its index moves.
    let gate: Promise<void> | undefined;
    let open = () => {};
    const gated: ReadStore = {
      ...readStore,
      snapshot: async () => {
        const snapshot = await readStore.snapshot();
        let reads = 0;
        return {
          ...snapshot,
          getMany: async (collection, ids) => {
            reads += 1;
            if (reads > 1 && gate) await gate;
            return snapshot.getMany(collection, ids);
          },
        };
      },
    };
    let signer: TransparencyLog | undefined;
    let follower: TransparencyLog | undefined;
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await appendAll(eventStore, Array.from({ length: 5 }, (_, i) => serialRegistered(`FIRST-${i}`)));
      await project();
      signer = await startTransparencyLog({ readStore, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'signer') });
      follower = await startTransparencyLog({ readStore: gated, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'follower') });
      const first = (await follower.indexAnswer('FIRST-0'))!.checkpoint;
      await appendAll(eventStore, Array.from({ length: 5 }, (_, i) => serialRegistered(`SECOND-${i}`)));
      await project();
      await signer.look();
      expect(signer.checkpoint()!.size, 'the newer checkpoint').to.be.greaterThan(first.size);

      gate = new Promise((resolve) => { open = resolve; });
      const looking = follower.look();
      await until('the look read the newer checkpoint', () => follower!.checkpoint()?.size === signer!.checkpoint()!.size, 5_000);
      const during = (await follower.indexAnswer('FIRST-0'))!;
      const committedRoot = (note: string) => indexCommitmentOf(parseCheckpoint(note.slice(0, note.indexOf('\n\n') + 1)))!.root;
      expect(during.checkpoint.size, 'the checkpoint the index stands at').to.equal(first.size);
      expect(verifyIndexAnswer(indexVrfKey(key).publicKey, committedRoot(during.checkpoint.note), during.answer), 'proved under it').to.equal(true);
      open();
      await looking;
      const after = (await follower.indexAnswer('SECOND-4'))!;
      expect(after.checkpoint.size, 'once the look is done').to.equal(signer.checkpoint()!.size);
      expect(verifyIndexAnswer(indexVrfKey(key).publicKey, committedRoot(after.checkpoint.note), after.answer)).to.equal(true);
    } finally {
      open();
      await signer?.stop();
      await follower?.stop();
      await close();
    }
  });

  it('raises no alarm over a checkpoint whose index it cannot compare (no index line, or another VRF key), and proves nothing from it', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const alarmsOver = async (extensions: string[]) => {
      const { answer, lines } = await followOverSignedTree(key, extensions);
      return { answer, alarms: lines.filter((line) => line.level >= 40).map((line) => line.msg) };
    };
    // Signed by a process whose index was not built: the log alone.
    expect(await alarmsOver([]), 'no index line').to.deep.equal({ answer: undefined, alarms: [] });
    // Signed under another VRF key (a log key since rotated): its index keys are others, nothing to compare.
    const otherVrfKey = indexVrfKey(generateKeyPairSync('ed25519').privateKey).publicKey;
    expect(await alarmsOver([indexExtension({ root: Buffer.alloc(32, 7), vrfPublicKey: otherVrfKey })]), 'another VRF key')
      .to.deep.equal({ answer: undefined, alarms: [] });
  });

  it('once its log is rebuilt with the index, proves nothing at the checkpoint signed without it, and proves at the next tree', async () => {
    const { eventStore, readStore, project, close } = logHistory();
    const key = generateKeyPairSync('ed25519').privateKey;
    let log: TransparencyLog | undefined;
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await appendAll(eventStore, [serialRegistered('FLIP-0001')]);
      // The first event projected into the log by the version before the index's changes: the index is not built.
      const first = (await eventStore.readAll({ after: 0, limit: 1 }))[0]!.position;
      await rebuild({ eventStore, readStore, projections: [logProjectionUpgradedAfter(first)] });
      log = await startTransparencyLog({ readStore, key, origin: 'watch.example/log', logger: createLogger('silent', 'flip-test'), intervalMs: 600_000 });
      expect(log.indexBuilt()).to.equal(false);
      const unbuilt = log.checkpoint()!;
      const committedBy = (note: string) => indexCommitmentOf(parseCheckpoint(parseNote(note).text));
      expect(committedBy(unbuilt.note), 'signed without an index line').to.equal(undefined);
      // Rebuilt by this version: the index's changes from the first leaf.
      await rebuild({ eventStore, readStore, projections: [logProjection] });
      await log.look();
      expect(log.indexBuilt()).to.equal(true);
      expect(await log.indexAnswer('FLIP-0001'), 'no proof at a checkpoint that commits no index').to.equal(undefined);
      // The next event: a tree whose checkpoint commits the index, and a proof that holds under it.
      await appendAll(eventStore, [serialRegistered('FLIP-0002')]);
      await project();
      await log.look();
      const proved = await log.indexAnswer('FLIP-0001');
      expect(proved?.checkpoint.size, 'proved at the next tree').to.be.greaterThan(unbuilt.size);
      const committed = committedBy(proved!.checkpoint.note)!;
      expect(proved!.answer.status).to.equal('AUTHENTIC');
      expect(verifyIndexAnswer(committed.vrfPublicKey, committed.root, proved!.answer)).to.equal(true);
    } finally {
      await log?.stop();
      await close();
    }
  });

  it('answers no proof before any checkpoint, after three looks at most rather than waiting for one', async () => {
    let looks = 0;
    const store = createMemoryReadStore();
    const counted: ReadStore = { ...store, snapshot: async () => { looks += 1; return store.snapshot(); } };
    const log = await startTransparencyLog({
      readStore: counted, key: generateKeyPairSync('ed25519').privateKey, origin: 'watch.example/log', logger: createLogger('silent', 'empty-test'), intervalMs: 600_000,
    });
    try {
      const before = looks;
      expect(await log.indexAnswer('NONE-0001')).to.equal(undefined);
      expect(looks - before, 'looks made for the answer').to.equal(3);
    } finally {
      await log.stop();
    }
  });
});

