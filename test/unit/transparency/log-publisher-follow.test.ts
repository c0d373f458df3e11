/**
 * A process that follows checkpoints another one signs (read-api/transparency/log-publisher.ts): its serial index
 * catches up with them look after look; it proves a serial only at a checkpoint whose index line commits the index it
 * builds itself, and raises an alarm when it commits another; it follows no checkpoint its tiles do not hold yet, nor
 * one while its own log is not built; and an answer asked while a look reads a newer checkpoint names the checkpoint
 * its index stands at; and one that lost the race to store a tree it signed too proves at the winner's checkpoint.
 * Every proof is checked with the VRF key and the root the checkpoint commits.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import { startTransparencyLog, type TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { appendAll, catalogueHistory } from '../../projector/support/history.ts';
import { capturingLogger, logHistory, logProjection, logProjectionUpgradedAfter } from '../../support/signed-log.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { until } from '../../support/until.ts';
import { noteText, parseNote, signNote } from '../../../shared/read-model/transparency/signed-note.ts';
import { TileLog } from '../../../shared/read-model/transparency/tile-log.ts';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import { indexCommitmentOf, indexExtension, verifyIndexAnswer } from '../../../shared/read-model/transparency/serial-index.ts';
import { SIGNED_CHECKPOINT_ID, signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint } from '../../../shared/read-model/transparency/signed-checkpoints.ts';
import { indexVrfKey } from '../../../read-api/transparency/checkpoint-index.ts';

/**
 * A follower started over a log of two catalogue events and one serial, whose whole tree another process signed with
 * `key` and `extensions`: its index answer for that serial, and the lines it logged.
 */
async function followOverSignedTree(key: KeyObject, extensions: string[]) {
  const { eventStore, readStore, project, startLog, close } = logHistory();
  const origin = 'watch.example/log';
  const { logger, lines } = capturingLogger<{ level: number; msg: string; alert?: string }>();
  try {
    await appendAll(eventStore, catalogueHistory(2));
    await appendAll(eventStore, [serialRegistered('FOLLOW-0001')]);
    await project();
    const log = await TileLog.read(await readStore.snapshot());
    const body = checkpointBody({ origin, size: log.size, root: await log.root(log.size), extensions });
    expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signNote(body, origin, key)), undefined)).to.equal(true);
    const follower = await startLog({
      readStore, key, origin, intervalMs: 600_000,
      logger,
    });
    expect(follower.checkpoint()?.size, 'the checkpoint served').to.equal(log.size);
    return { answer: await follower.indexAnswer('FOLLOW-0001'), lines };
  } finally {
    await close();
  }
}

describe('transparency log: a process that follows checkpoints another one signs', () => {
  it('proves the serials of a bulk another process signed once its index catches up, look after look, within its budget', async function () {
    this.timeout(60_000);
    const { eventStore, readStore, project, startLog, close } = logHistory();
    const key = generateKeyPairSync('ed25519').privateKey;
    const start = (intervalMs: number) => startLog({ readStore, key, origin: 'watch.example/log', logger: createLogger('silent', 'follow-test'), intervalMs });
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await project();
      // Both start over the same log, each building its index whole at its start; only the signer looks on its own.
      const signer = await start(10);
      const follower = await start(600_000);
      // A bulk of new serials: each a VRF evaluation, far more than one look's budget (100 ms) of them.
      const bulk = Array.from({ length: 150 }, (_, i) => `FOLLOW-${String(i).padStart(4, '0')}`);
      const size = await appendAll(eventStore, bulk.map((serial) => serialRegistered(serial)));
      await project();
      await until('the signer signed the whole bulk', () => signer.checkpoint()?.size === size, 30_000);
      // The follower's looks find that tree signed by the other: each goes a budget further with its index.
      const last = bulk.at(-1)!;
      let proved: Awaited<ReturnType<TransparencyLog['indexAnswer']>>;
      await until('the follower proves the bulk\'s last serial', async () => {
        // As the projectors' word that the log moved would have it look.
        await follower.look();
        proved = await follower.indexAnswer(last);
        return proved?.checkpoint.size === size;
      }, 30_000);
      expect(proved!.answer.status).to.equal('AUTHENTIC');
    } finally {
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
      const { eventStore, readStore, project, projectInto, startLog, close } = logHistory();
      // Another read store, further on: the store a signer read (a replica of the database ahead of this one's).
      const ahead = createMemoryReadStore();
      const { logger, lines } = capturingLogger<{ level: number; alert?: string }>();
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
        await projectInto(ahead);
        const signer = await startLog({ readStore: ahead, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'ahead') });
        const signed = signer.checkpoint()!;
        expect([(await TileLog.read(await readStore.snapshot())).size, signed.size], 'the tiles read, the tree signed').to.deep.equal([behind, all]);
        expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signed.note), undefined)).to.equal(true);

        const follower = await startLog({
          readStore, key, origin, intervalMs: 600_000,
          logger,
        });
        await follower.look();
        expect(await follower.indexAnswer('BEHIND-0001'), 'no proof before its tiles hold the signed tree').to.equal(undefined);
        await project();
        await follower.look();
        const proved = await follower.indexAnswer('AHEAD-0019');
        expect(proved?.checkpoint.size, 'proved at the signed tree once its tiles hold it').to.equal(all);
        expect(verifyIndexAnswer(indexVrfKey(key).publicKey, indexCommitmentOf(parseCheckpoint(noteText(signed.note)))!.root, proved!.answer)).to.equal(true);
        expect(lines.filter((line) => line.level >= 40), 'warnings and alarms').to.deep.equal([]);
      } finally {
        await close();
      }
    });
  }

  it('with its log not built, raises no alarm over a checkpoint another process signed with an index line, and proves nothing from it', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/log';
    const { eventStore, readStore, startLog, close } = logHistory();
    const built = createMemoryReadStore();
    const { logger, lines } = capturingLogger<{ level: number; msg: string }>();
    try {
      await appendAll(eventStore, Array.from({ length: 3 }, (_, i) => serialRegistered(`UNBUILT-${i}`)));
      await appendAll(eventStore, catalogueHistory(2));
      // This store's log projected in part by the version before the index's changes (the first serial's change is
      // missing); another store's from the start.
      const first = (await eventStore.readAll({ after: 0, limit: 1 }))[0]!.position;
      await rebuild({ eventStore, readStore, projections: [logProjectionUpgradedAfter(first)] });
      await rebuild({ eventStore, readStore: built, projections: [logProjection] });
      const signer = await startLog({ readStore: built, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'built') });
      const signed = signer.checkpoint()!;
      expect(indexCommitmentOf(parseCheckpoint(parseNote(signed.note).text)), 'signed with an index line').to.not.equal(undefined);
      expect(await storeSignedCheckpoint(readStore, signedCheckpointDoc(signed.note), undefined)).to.equal(true);

      const follower = await startLog({
        readStore, key, origin, intervalMs: 600_000,
        logger,
      });
      await follower.look();
      await follower.look();
      expect(follower.indexBuilt()).to.equal(false);
      expect(await follower.indexAnswer('UNBUILT-0'), 'no proof from a log not built').to.equal(undefined);
      expect(lines.filter((line) => line.level >= 50).map((line) => line.msg), 'errors').to.deep.equal([]);
    } finally {
      await close();
    }
  });

  it('answers, while a look reads a newer checkpoint, with the checkpoint its index stands at, not the newer one', async () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/log';
    const { eventStore, readStore, project, startLog, close } = logHistory();
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
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await appendAll(eventStore, Array.from({ length: 5 }, (_, i) => serialRegistered(`FIRST-${i}`)));
      await project();
      const signer = await startLog({ readStore, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'signer') });
      const follower = await startLog({ readStore: gated, key, origin, intervalMs: 600_000, logger: createLogger('silent', 'follower') });
      const first = (await follower.indexAnswer('FIRST-0'))!.checkpoint;
      await appendAll(eventStore, Array.from({ length: 5 }, (_, i) => serialRegistered(`SECOND-${i}`)));
      await project();
      await signer.look();
      expect(signer.checkpoint()!.size, 'the newer checkpoint').to.be.greaterThan(first.size);

      gate = new Promise((resolve) => { open = resolve; });
      const looking = follower.look();
      await until('the look read the newer checkpoint', () => follower!.checkpoint()?.size === signer!.checkpoint()!.size, 5_000);
      const during = (await follower.indexAnswer('FIRST-0'))!;
      const committedRoot = (note: string) => indexCommitmentOf(parseCheckpoint(noteText(note)))!.root;
      expect(during.checkpoint.size, 'the checkpoint the index stands at').to.equal(first.size);
      expect(verifyIndexAnswer(indexVrfKey(key).publicKey, committedRoot(during.checkpoint.note), during.answer), 'proved under it').to.equal(true);
      open();
      await looking;
      const after = (await follower.indexAnswer('SECOND-4'))!;
      expect(after.checkpoint.size, 'once the look is done').to.equal(signer.checkpoint()!.size);
      expect(verifyIndexAnswer(indexVrfKey(key).publicKey, committedRoot(after.checkpoint.note), after.answer)).to.equal(true);
    } finally {
      open();
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
    const { eventStore, readStore, project, startLog, close } = logHistory();
    const key = generateKeyPairSync('ed25519').privateKey;
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await appendAll(eventStore, [serialRegistered('FLIP-0001')]);
      // The first event projected into the log by the version before the index's changes: the index is not built.
      const first = (await eventStore.readAll({ after: 0, limit: 1 }))[0]!.position;
      await rebuild({ eventStore, readStore, projections: [logProjectionUpgradedAfter(first)] });
      const log = await startLog({ readStore, key, origin: 'watch.example/log', logger: createLogger('silent', 'flip-test'), intervalMs: 600_000 });
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

  it('proves at a tree it signed too but another process stored first: the race lost, its index is judged against the winner\'s line', async () => {
    const { eventStore, readStore, project, startLog, close } = logHistory();
    const key = generateKeyPairSync('ed25519').privateKey;
    const origin = 'watch.example/log';
    const silent = createLogger('silent', 'race-test');
    try {
      await appendAll(eventStore, catalogueHistory(2));
      await appendAll(eventStore, [serialRegistered('RACE-0001')]);
      await project();
      const winner = await startLog({ readStore, key, origin, logger: silent, intervalMs: 600_000 });
      // The loser's writes of a signed checkpoint, once armed: the winner looks (and signs the same tree) first.
      let armed = false;
      const racing: ReadStore = {
        ...readStore,
        setControl: async (doc, condition, insertIfAbsent, onWritten) => {
          if (armed && doc._id === SIGNED_CHECKPOINT_ID) {
            armed = false;
            await winner.look();
          }
          return readStore.setControl(doc, condition, insertIfAbsent, onWritten);
        },
      };
      const loser = await startLog({ readStore: racing, key, origin, logger: silent, intervalMs: 600_000 });
      const size = await appendAll(eventStore, [serialRegistered('RACE-0002')]);
      await project();
      armed = true;
      await loser.look();
      expect(armed, 'the loser tried to store its checkpoint').to.equal(false);
      expect(signedCheckpointOf(await readStore.readControl())?.size, 'the tree both signed, stored by the winner').to.equal(size);
      await loser.look();
      const proved = await loser.indexAnswer('RACE-0002');
      expect(proved?.checkpoint.size, 'the loser proves at the winner\'s checkpoint').to.equal(size);
      const committed = indexCommitmentOf(parseCheckpoint(parseNote(proved!.checkpoint.note).text))!;
      expect(verifyIndexAnswer(indexVrfKey(key).publicKey, committed.root, proved!.answer), 'proved under the winner\'s line').to.equal(true);
    } finally {
      await close();
    }
  });
});
