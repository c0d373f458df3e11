/**
 * A tree the transparency log's signer refused stays refused while a later look judges it again: a look sets the view
 * it serves from before its checks (read-api/transparency/log-publisher.ts), and a signed answer asks `parked()`
 * before it pins the latest checkpoint (answer-checkpoint.ts). The history grows by one event, still another than the
 * tree signed, and every read of the store is slowed during the look that judges it, so that its checks take tens
 * of milliseconds; the log is asked all along.
 */
import { generateKeyPairSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { pino } from 'pino';
import type { ReadSnapshot, ReadStore } from '../../shared/ports/read-store.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { signNote } from '../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { answerCheckpoint } from '../../read-api/transparency/answer-checkpoint.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { logHistory } from '../support/signed-log.ts';
import { appendAll } from './support/history.ts';

const ORIGIN = 'watch.example/watchcat/events';
const KEY = generateKeyPairSync('ed25519').privateKey;

/** `store`, each read of its snapshots waiting `delay.ms` first. */
function slowed(store: ReadStore, delay: { ms: number }): ReadStore {
  const slow = (snapshot: ReadSnapshot): ReadSnapshot => new Proxy(snapshot, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await sleep(delay.ms);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'snapshot') return async () => slow(await target.snapshot());
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('a tree the transparency log refused, while a look judges it again', () => {
  const history = logHistory();
  after(() => history.close());

  it('stays refused all along the look: parked, and no signed answer pins its checkpoint', async () => {
    // Past a full tile (256 leaves), so that judging a tree reads tiles from the store.
    await appendAll(history.eventStore, Array.from({ length: 300 }, (_, i) => serialRegistered(`HELD-${i}`)));
    await history.project();
    // The same key signed another history of 260 events; the log's owner then confirms its head again, seen happen.
    const forged = signedCheckpointDoc(signNote(checkpointBody({ origin: ORIGIN, size: 260, root: new Uint8Array(32).fill(7) }), ORIGIN, KEY));
    expect(await storeSignedCheckpoint(history.readStore, forged, signedCheckpointOf(await history.readStore.readControl()))).to.equal(true);
    const delay = { ms: 0 };
    const log = await history.startLog({ readStore: slowed(history.readStore, delay), key: KEY, origin: ORIGIN, logger: pino({ level: 'silent' }), intervalMs: 60_000 });
    await sleep(5);
    await history.project();
    await log.look();
    const refused = log.parked();
    expect(refused).to.match(/^the first 260 events of the history give another root/);
    const pinned = answerCheckpoint(log);

    // One more event: a tree the next look has not judged yet, which its checks read the tiles for.
    await appendAll(history.eventStore, [serialRegistered('HELD-300')]);
    await history.project();
    delay.ms = 20;
    let done = false;
    const looking = log.look().finally(() => { done = true; });
    const seen: (string | undefined)[] = [];
    while (!done) {
      seen.push(log.parked());
      expect(await pinned(Number.MAX_SAFE_INTEGER), 'a signed answer pins no tree').to.equal(undefined);
      await sleep(1);
    }
    await looking;
    expect(seen.length, 'asked during the look').to.be.above(5);
    expect(seen.filter((reason) => reason !== refused), 'never unrefused').to.deep.equal([]);
    expect(log.parked(), 'refused again').to.equal(refused);
  });
});
