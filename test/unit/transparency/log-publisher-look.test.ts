/**
 * When an API process looks at the transparency log (read-api/transparency/log-publisher.ts): at each period while
 * `lookAfterMs` says 0, and otherwise (the projectors' word heard, read-api/main.ts) only when told the log moved,
 * or once the last look is that old. A grown log is signed at the look that finds it (README, "Transparency log":
 * a checkpoint within a second of an append).
 */
import { generateKeyPairSync } from 'node:crypto';
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
import { capturingLogger, logHistory, logProjection } from '../../support/signed-log.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { until } from '../../support/until.ts';
import { verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';

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

describe('transparency log: what a publisher logs and serves of itself', () => {
  /** A publisher over a log of two events, its log lines kept; `readStore` wraps the store when given. */
  async function publisher(wrap: (store: ReadStore) => ReadStore = (store) => store) {
    const history = logHistory();
    const size = await appendAll(history.eventStore, catalogueHistory(2));
    await history.project();
    const { logger, lines } = capturingLogger<{ level: number; msg: string; err?: { message: string } }>();
    const key = generateKeyPairSync('ed25519').privateKey;
    const log = await history.startLog({ readStore: wrap(history.readStore), key, origin: 'watch.example/log', logger, intervalMs: 10 });
    return { log, lines, key, size, close: history.close };
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
