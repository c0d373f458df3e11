/**
 * The embedded read models' snapshot: a restart on existing data loads it and replays only the events after it; a
 * snapshot of another history (or a cut one), of other projections code, or a damaged file is ignored with one log
 * line, and the answers are then those of a full replay; a crash mid-write leaves the previous snapshot usable.
 * Events read are counted through a wrapper of the event store (no timing).
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { readModelSnapshots, type ReadModelSnapshotOptions } from '../../../shared/adapters/read-model-snapshot/read-model-snapshots.ts';
import type { EventStore, NewEvent } from '../../../shared/ports/event-store.ts';
import { PROJECTIONS } from '../../../shared/read-model/projections/index.ts';
import { rebuild } from '../../../shared/read-model/projections/rebuild.ts';
import { createProjector } from '../../../projector/runner.ts';
import { watchPriceChanged } from '../../fixtures/events.ts';
import { appendAll, catalogueHistory, snapshot } from '../../projector/support/history.ts';

/** Log lines, as objects. */
function capturingLogger() {
  const lines: { level: number; msg: string; reason?: string }[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString())); done(); } });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/**
 * The event store, counting the events the projector reads from it to apply: not the one event a run reads back at
 * its checkpoint to check that the history still holds it (a read of one event:
 * shared/read-model/projections/history-check.ts); the projector's batches here read many at a time.
 */
function counting(inner: EventStore): { store: EventStore; read: () => number } {
  let events = 0;
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === 'readAll') {
        return async (options: Parameters<EventStore['readAll']>[0]) => {
          const found = await target.readAll(options);
          if (options.limit !== 1) events += found.length;
          return found;
        };
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, read: () => events };
}

/** What a full replay of the same history gives. */
async function replayed(eventStore: EventStore) {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh });
  return snapshot(fresh);
}

describe('read-model snapshot of the embedded store', function () {
  this.timeout(20_000);
  let dir: string;
  let file: string;
  const opened: EventStore[] = [];
  const eventStoreWith = async (events: readonly NewEvent[]): Promise<EventStore> => {
    const store = openSqliteEventStore(':memory:');
    opened.push(store);
    await appendAll(store, events);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-snapshot-'));
    file = join(dir, 'read-models.snapshot');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One start as all-in-one does it: load the snapshot, catch up, stop, write the snapshot; what it read and logged. */
  async function start(eventStore: EventStore, extra: Partial<ReadModelSnapshotOptions> = {}) {
    const { logger, lines } = capturingLogger();
    const readStore = createMemoryReadStore();
    const snapshots = readModelSnapshots({ file, store: readStore, eventStore, logger, intervalMs: 60_000, ...extra });
    const loaded = await snapshots.load();
    const reads = counting(eventStore);
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore: reads.store, readStore, queue, logger: pino({ level: 'silent' }) });
    await projector.catchUp();
    await projector.stop();
    await queue.close();
    const eventsRead = reads.read();
    await snapshots.stop();
    return { loaded, eventsRead, readStore, lines, snapshots };
  }

  const ignoredLines = (lines: { msg: string }[]) => lines.filter((line) => line.msg.includes('snapshot ignored'));

  it('a restart loads the snapshot and replays only the events after it, with the answers of a full replay', async () => {
    const history = catalogueHistory(30);
    const eventStore = await eventStoreWith(history);
    const first = await start(eventStore);
    expect(first.loaded).to.equal(false);
    expect(first.eventsRead).to.equal(history.length * PROJECTIONS.length);
    expect(statSync(file).mode & 0o777).to.equal(0o600);

    const tail = [watchPriceChanged('TMP-1', 1_300_000, 1_250_000), watchPriceChanged('ABY-1', 950_000, 900_000)];
    await appendAll(eventStore, tail);
    const second = await start(eventStore);
    expect(second.loaded).to.equal(true);
    expect(second.eventsRead).to.equal(tail.length * PROJECTIONS.length);
    expect(await snapshot(second.readStore)).to.deep.equal(await replayed(eventStore));
    // The withdrawn watch's tombstone came back with the snapshot: an older write still cannot pass it.
    const [tombstone] = await second.readStore.generation('watches', 1).getStored(['en:TMP-2']);
    expect(tombstone).to.include({ _id: 'en:TMP-2', _deleted: true });

    const third = await start(eventStore);
    expect(third.loaded).to.equal(true);
    expect(third.eventsRead).to.equal(0);
  });

  it('writes a new snapshot only once a projection moved', async () => {
    const eventStore = await eventStoreWith(catalogueHistory(10));
    const { snapshots, readStore } = await start(eventStore);
    const written = readFileSync(file, 'utf8');
    expect(await snapshots.write()).to.equal(false);
    expect(readFileSync(file, 'utf8')).to.equal(written);

    await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const projector = createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }) });
    await projector.catchUp();
    await projector.stop();
    await queue.close();
    expect(await snapshots.write()).to.equal(true);
    expect(readFileSync(file, 'utf8')).to.not.equal(written);
    expect(await snapshots.write()).to.equal(false);
  });

  it('ignores a snapshot of another history, with one log line, and answers as a full replay', async () => {
    await start(await eventStoreWith(catalogueHistory(30)));
    const other = await eventStoreWith(catalogueHistory(30));
    const again = await start(other);
    expect(again.loaded).to.equal(false);
    expect(again.eventsRead).to.equal(catalogueHistory(30).length * PROJECTIONS.length);
    expect(ignoredLines(again.lines)).to.have.length(1);
    expect(await snapshot(again.readStore)).to.deep.equal(await replayed(other));
  });

  it('ignores a snapshot of a history cut since (its last event is gone)', async () => {
    const history = catalogueHistory(30);
    await start(await eventStoreWith(history));
    const cut = await eventStoreWith(history.slice(0, -3));
    const again = await start(cut);
    expect(again.loaded).to.equal(false);
    expect(ignoredLines(again.lines)).to.have.length(1);
    expect(await snapshot(again.readStore)).to.deep.equal(await replayed(cut));
  });

  it('ignores a snapshot built by other projections code', async () => {
    const eventStore = await eventStoreWith(catalogueHistory(30));
    await start(eventStore, { version: 'projections-before' });
    const again = await start(eventStore, { version: 'projections-after' });
    expect(again.loaded).to.equal(false);
    expect(ignoredLines(again.lines)).to.have.length(1);
    expect(again.eventsRead).to.equal(catalogueHistory(30).length * PROJECTIONS.length);
    expect(await snapshot(again.readStore)).to.deep.equal(await replayed(eventStore));
  });

  it('ignores a truncated or altered file, never crashing', async () => {
    const eventStore = await eventStoreWith(catalogueHistory(30));
    await start(eventStore);
    const whole = readFileSync(file, 'utf8');
    truncateSync(file, Math.floor(whole.length / 2));
    const truncated = await start(eventStore);
    expect(truncated.loaded).to.equal(false);
    expect(ignoredLines(truncated.lines)).to.have.length(1);

    // A document changed in place (a valid JSON line, so only the checksum tells).
    const altered = readFileSync(file, 'utf8').replace('"TMP-1"', '"TMP-9"');
    expect(altered).to.not.equal(readFileSync(file, 'utf8'));
    writeFileSync(file, altered);
    const again = await start(eventStore);
    expect(again.loaded).to.equal(false);
    expect(ignoredLines(again.lines)).to.have.length(1);
    expect(await snapshot(again.readStore)).to.deep.equal(await replayed(eventStore));

    writeFileSync(file, 'not a snapshot');
    expect((await start(eventStore)).loaded).to.equal(false);
  });

  it('a crash mid-write leaves the previous snapshot whole and usable', async () => {
    const history = catalogueHistory(30);
    const eventStore = await eventStoreWith(history);
    await start(eventStore);
    const previous = readFileSync(file, 'utf8');

    const tail = [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)];
    await appendAll(eventStore, tail);
    const crashing = start(eventStore, {
      write: { chunkRecords: 5, beforeChunk: (index) => { if (index === 2) throw new Error('crash mid-write'); } },
    });
    await crashing.then(() => expect.fail('the write was to fail'), (error: Error) => expect(error.message).to.equal('crash mid-write'));
    expect(readFileSync(file, 'utf8')).to.equal(previous);

    const again = await start(eventStore);
    expect(again.loaded).to.equal(true);
    expect(again.eventsRead).to.equal(tail.length * PROJECTIONS.length);
    expect(await snapshot(again.readStore)).to.deep.equal(await replayed(eventStore));
  });
});
