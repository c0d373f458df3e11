import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered, watchPriceChanged } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { SerialsDoc } from '../../shared/read-model/documents/documents.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { createProjector } from '../../projector/runner.ts';
import type { Projector, ProjectorOptions } from '../../projector/projector.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { ProjectionLease } from '../../shared/read-model/projections/lease.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { watchesProjection } from '../../shared/read-model/projections/watches.projection.ts';
import { collectionsProjection } from '../../shared/read-model/projections/collections.projection.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

const logger = pino({ level: 'silent' });
const FAST_BACKOFF = { firstMs: 2, maxMs: 10 };

const stateOf = async (store: ReadStore, name: string) => (await readProjectionStates(store)).find((state) => state.name === name);

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The stored checkpoints: position and confirmed head, by projection. */
async function stored(readStore: ReadStore): Promise<Record<string, { position: number; confirmedHead: number | undefined }>> {
  const states = await readProjectionStates(readStore);
  return Object.fromEntries(states.map((s) => [s.name, { position: s.position, confirmedHead: s.confirmed?.head }]));
}

/** What a clean rebuild of the same history gives. */
async function rebuiltFrom(eventStore: EventStore) {
  const fresh = createMemoryReadStore();
  await rebuild({ eventStore, readStore: fresh });
  return snapshot(fresh);
}

describe('projector runner', () => {
  let eventStore: EventStore;
  let readStore: ReadStore;
  let queue: JobQueue;
  let projector: Projector | undefined;

  beforeEach(() => {
    eventStore = openSqliteEventStore(':memory:');
    readStore = createMemoryReadStore();
    queue = createInlineJobQueue({ attempts: 3, backoffMs: 5 });
    projector = undefined;
  });

  afterEach(async () => {
    await projector?.stop();
    await queue.close();
    await eventStore.close();
  });

  it('catches every projection up to the head in batches and stores their checkpoints', async () => {
    const head = await appendAll(eventStore, catalogueHistory(30));
    projector = createProjector({ eventStore, readStore, queue, logger, batchSize: 7 });
    await projector.catchUp();
    expect(projector.positions()).to.deep.equal({ watches: head, collections: head, configurators: head, serials: head, 'transparency-log': head });
    const states = await readProjectionStates(readStore);
    expect(states.map((s) => [s.name, s.position, s.status])).to.deep.equal([
      ['watches', head, 'running'], ['collections', head, 'running'], ['configurators', head, 'running'], ['serials', head, 'running'], ['transparency-log', head, 'running'],
    ]);
    expect(await snapshot(readStore)).to.deep.equal(await rebuiltFrom(eventStore));
  });

  it('tells onBatch of each checkpoint it stored, with its generation and position (what the replicas are told)', async () => {
    const head = await appendAll(eventStore, catalogueHistory(30));
    const told: Array<{ projection: string; generation: number; position: number }> = [];
    projector = createProjector({ eventStore, readStore, queue, logger, batchSize: 7, onBatch: (projection, _seconds, stored) => told.push({ projection, ...stored }) });
    await projector.catchUp();
    const batchEnds = [...Array.from({ length: Math.floor(head / 7) }, (_, i) => (i + 1) * 7), ...(head % 7 === 0 ? [] : [head])];
    for (const state of await readProjectionStates(readStore)) {
      expect(told.filter((each) => each.projection === state.name), state.name)
        .to.deep.equal(batchEnds.map((position) => ({ projection: state.name, generation: state.generation, position })));
    }
  });

  it('follows the feed once started: an append is projected and waitFor resolves at its position', async () => {
    await appendAll(eventStore, catalogueHistory(2));
    projector = createProjector({ eventStore, readStore, queue, logger, pollIntervalMs: 60_000 });
    projector.start();
    const position = await appendAll(eventStore, [serialRegistered('LATE-0001', { reference: 'TMP-1', collection: 'tempo' })]);
    await projector.waitFor(position, 5_000);
    expect(await readStore.get('serials', 'LATE-0001')).to.include({ status: 'authentic', position });
  });

  it('runs one projection one run at a time in a process, however the signals come', async () => {
    // Each read of the events is slow, and appends come faster: signals arrive during runs and after them.
    let reading = 0;
    let mostAtOnce = 0;
    const slow: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      readAll: async (...args: Parameters<EventStore['readAll']>) => {
        reading += 1;
        mostAtOnce = Math.max(mostAtOnce, reading);
        try {
          await new Promise((resolve) => setTimeout(resolve, 15));
          return await eventStore.readAll(...args);
        } finally {
          reading -= 1;
        }
      },
    });
    projector = createProjector({ eventStore: slow, readStore, queue, logger, projections: [serialsProjection], pollIntervalMs: 60_000 });
    projector.start();
    let head = 0;
    for (let i = 0; i < 30; i += 1) {
      head = await appendAll(eventStore, [serialRegistered(`ONE-${String(i).padStart(4, '0')}`)]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await projector.waitFor(head, 5_000);
    expect(mostAtOnce, 'reads of the events under way at once').to.equal(1);
    expect(await readStore.get('serials', 'ONE-0029')).to.include({ status: 'authentic', position: head });
  });

  it('waitFor rejects when the read models do not reach the position in time', async () => {
    projector = createProjector({ eventStore, readStore, queue, logger });
    let failure: unknown;
    await projector.waitFor(1_000, 30).catch((error: unknown) => { failure = error; });
    expect(String(failure)).to.match(/did not reach position 1000 within 30 ms/);
  });

  it('after a crash between a write and its checkpoint, a restart gives the documents of a clean rebuild', async () => {
    await appendAll(eventStore, catalogueHistory(25));
    // The third checkpoint advance "crashes": the batch's documents are written, its checkpoint is not.
    let checkpointWrites = 0;
    const crashing: ReadStore = {
      ...readStore,
      setControl: async (doc, condition, insertIfAbsent) => {
        if (doc._id.startsWith('checkpoint:') && condition['token'] === doc['token'] && ++checkpointWrites === 3) throw new Error('process killed');
        return readStore.setControl(doc, condition, insertIfAbsent);
      },
    };
    const beforeCrash = createProjector({ eventStore, readStore: crashing, queue, logger, batchSize: 10, projections: [serialsProjection] });
    await beforeCrash.catchUp();
    expect(await stateOf(readStore, 'serials')).to.include({ position: 20 });
    expect(await readStore.get('serials', 'TMP-00015'), 'written before the crash').to.not.equal(null);

    projector = createProjector({ eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, batchSize: 10 });
    await projector.catchUp();
    expect(await snapshot(readStore)).to.deep.equal(await rebuiltFrom(eventStore));
  });

  it('an event that fails its projection every time parks that projection (in the store, for every process) while the others reach the head', async () => {
    const head = await appendAll(eventStore, [...catalogueHistory(5), serialRegistered('POISON-1'), serialRegistered('AFTER-1')]);
    const poisonPosition = head - 1;
    const { projection: faulty, attempts } = poisoned();
    const others = PROJECTIONS.filter((p) => p.name !== 'serials');
    projector = createProjector({ eventStore, readStore, queue, logger, projections: [...others, faulty], batchSize: 4, backoff: FAST_BACKOFF });
    projector.start();
    await projector.catchUp();
    await until('serials parked', () => projector!.status().find((s) => s.name === 'serials')?.status === 'parked');
    expect(attempts(), 'the default poison attempts').to.equal(3);
    const reason = `projection serials cannot apply SerialRegistered at position ${poisonPosition}: cannot read this serial`;
    const serials = projector.status().find((s) => s.name === 'serials');
    expect(serials?.parked).to.deep.equal({ position: poisonPosition, reason });
    expect(serials?.position).to.be.below(poisonPosition);
    for (const other of others) expect(projector.positions()[other.name], other.name).to.equal(head);
    expect(await stateOf(readStore, 'serials')).to.deep.include({ status: 'parked', position: serials?.position, parked: { position: poisonPosition, reason } });
    expect(await readStore.get('serials', 'AFTER-1')).to.equal(null);
    let waitFailure: unknown;
    await projector.waitFor(head, 1_000).catch((error: unknown) => { waitFailure = error; });
    expect(String(waitFailure)).to.match(/projection serials is parked/);
  });

  /** The serials projection, failing every time on the registration of POISON-1; `attempts` counts its tries. */
  function poisoned(): { projection: Projection<SerialsDoc>; attempts: () => number } {
    let attempts = 0;
    const projection: Projection<SerialsDoc> = {
      ...serialsProjection,
      apply(event, docs) {
        if (event.type === 'SerialRegistered' && event.data.serial === 'POISON-1') {
          attempts++;
          throw new Error('cannot read this serial');
        }
        return serialsProjection.apply(event, docs);
      },
    };
    return { projection, attempts: () => attempts };
  }

  /** A logger keeping its lines. */
  function keptLines(): { logger: pino.Logger; lines: { msg?: string; projection?: string }[] } {
    const lines: { msg?: string; projection?: string }[] = [];
    return { lines, logger: pino({ level: 'debug' }, { write: (line: string) => { lines.push(JSON.parse(line) as { msg?: string }); } }) };
  }

  const PARKED_LINE = 'projection parked on an event it cannot apply';

  it('a job that parks its projection ends with the park: no retry after it, no parked job counted, nothing logged after it', async () => {
    await appendAll(eventStore, [serialRegistered('POISON-1')]);
    const { projection, attempts } = poisoned();
    const { logger: logged, lines } = keptLines();
    let jobsEnded = 0;
    const watched: JobQueue = {
      ...queue,
      process: (handle) => queue.process(async (name) => {
        try {
          await handle(name);
        } finally {
          jobsEnded += 1;
        }
      }),
    };
    projector = createProjector({ eventStore, readStore, queue: watched, logger: logged, projections: [projection], backoff: FAST_BACKOFF, pollIntervalMs: 60_000 });
    // One signal, one job: it tries the event three times (the default), parks the projection, and ends.
    projector.start();
    await until('the job ended', () => jobsEnded === 1);
    expect(projector.status()[0]).to.include({ status: 'parked' });
    expect(attempts(), 'the default poison attempts').to.equal(3);
    // "Retries after an engine error" (projection_engine_retries_total): the two failures before the third were
    // retried; the failure that parked the projection is not retried, and the job did not find it parked: it parked it.
    expect(projector.counters()).to.include({ retries: 2, parkedSkips: 0 });
    const parkedAt = lines.findIndex((line) => line.msg === PARKED_LINE);
    expect(parkedAt, 'the park is logged').to.be.at.least(0);
    expect(lines.slice(parkedAt + 1).filter((line) => line.projection === 'serials').map((line) => line.msg), 'lines after the park').to.deep.equal([]);
  });

  it('a catch-up that parks its projection ends with the park: no failure logged, no job queued to retry it', async () => {
    await appendAll(eventStore, [serialRegistered('POISON-1')]);
    const { projection, attempts } = poisoned();
    const { logger: logged, lines } = keptLines();
    // Parked at its first failure: the catch-up itself parks it.
    projector = createProjector({ eventStore, readStore, queue, logger: logged, projections: [projection], poisonAttempts: 1, backoff: FAST_BACKOFF });
    await projector.catchUp();
    expect(attempts()).to.equal(1);
    expect(await stateOf(readStore, 'serials')).to.include({ status: 'parked' });
    expect(lines.map((line) => line.msg).filter((msg) => msg !== PARKED_LINE && /fail|retr/i.test(msg ?? '')), 'failures or retries logged').to.deep.equal([]);
    expect(await queue.depth(), 'jobs queued').to.equal(0);
    expect(projector.counters()).to.include({ retries: 0, parkedSkips: 0 });
  });

  it('a parked projection is skipped by every job, with a count, until resumed; then it applies its events', async () => {
    const head = await appendAll(eventStore, [serialRegistered('FLAKY-1')]);
    let healthy = false;
    const flaky: Projection<SerialsDoc> = {
      ...serialsProjection,
      apply(event, docs) {
        if (!healthy) throw new Error('store glitch');
        return serialsProjection.apply(event, docs);
      },
    };
    const first = createProjector({ eventStore, readStore, queue, logger, projections: [flaky], backoff: FAST_BACKOFF });
    first.start();
    await until('serials parked in the store', async () => (await stateOf(readStore, 'serials'))?.status === 'parked');
    await first.stop();
    healthy = true;
    projector = createProjector({ eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, projections: [flaky] });
    await projector.catchUp();
    expect(projector.counters().parkedSkips, 'the skipped run is counted').to.equal(1);
    expect(await stateOf(readStore, 'serials')).to.include({ status: 'parked', position: 0 });
    expect(await resumeProjection(readStore, flaky)).to.equal(true);
    expect(await resumeProjection(readStore, flaky), 'resuming twice').to.equal(false);
    await projector.catchUp();
    expect(await stateOf(readStore, 'serials')).to.deep.include({ status: 'running', position: head, parked: null });
    expect(projector.status()).to.deep.equal([{ name: 'serials', position: head, status: 'running', parked: null }]);
  });
  /**
   * A projector started at the head of a small history, once the start's own runs took every lease and kept it
   * (standing): from then on each append's signal runs its projections here, not through a job.
   */
  async function startedAtHead(options: Partial<ProjectorOptions>): Promise<{ projector: Projector; head: number }> {
    const head = await appendAll(eventStore, catalogueHistory(3));
    const started = createProjector({ eventStore, readStore, queue, logger, pollIntervalMs: 60_000, ...options });
    await started.catchUp();
    started.start();
    await until('every lease standing', async () => (await Promise.all(Object.keys(started.positions())
      .map((name) => ProjectionLease.standingFor(readStore, name)))).every((left) => left !== null));
    projector = started;
    return { projector: started, head };
  }

  // Issue 40: replicas judge freshness only by seeing a confirmation change, and refuse a verification past 5 s.
  it('confirms the head of an idle projection it holds standing again and again, with no append and no periodic signal', async () => {
    const { head } = await startedAtHead({});
    const confirmation = async () => (await stateOf(readStore, 'serials'))?.confirmed;
    const seen = new Set([(await confirmation())?.at]);
    for (const nth of ['a first time', 'a second time']) {
      await until(`confirmed again ${nth}`, async () => !seen.has((await confirmation())?.at));
      const again = await confirmation();
      expect(again?.head, 'the same head: nothing was appended').to.equal(head);
      seen.add(again?.at);
    }
  });

  describe('a projection that runs afterSignalMs after an append\'s signal (the transparency log)', () => {
    const priceOf = async () => (await readStore.get('watches', 'en:TMP-1') as { price_cents: number } | null)?.price_cents;

    /** The watches running `afterSignalMs` after the signal, the collections at once. */
    const startedWith = (afterSignalMs: number) =>
      startedAtHead({ projections: [{ ...watchesProjection, afterSignalMs } as Projection, collectionsProjection as Projection] });

    it('is not run at the signal, while the others are', async () => {
      await startedWith(60_000);
      // TMP-1 is at 12,500.00 EUR in the history; a price change moves the watches and the collections' price ranges.
      const position = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
      await until('the collections at the append', async () => (await stored(readStore))['collections']?.position === position);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await priceOf(), 'the watch 200 ms later').to.equal(1_250_000);
      expect((await stored(readStore))['watches']?.position).to.be.below(position);
    });

    it('is not run at once for a job another worker queued either: the job is one signal more (issue 44)', async () => {
      await startedWith(60_000);
      const position = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
      // What another worker's signal does for a projection it does not keep standing.
      await queue.add('watches', 'watches');
      await until('the collections at the append', async () => (await stored(readStore))['collections']?.position === position);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await priceOf(), 'the watch 200 ms later').to.equal(1_250_000);
    });

    it('runs that long after it', async () => {
      await startedWith(50);
      const position = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
      await until('the watches at the append', async () => (await stored(readStore))['watches']?.position === position);
      expect(await priceOf()).to.equal(1_300_000);
    });
  });

  /**
   * A started worker stores at once the checkpoints of the projections an append changed, and a moment later those of
   * the projections it left unchanged (issue 29: each append woke five projections, and the round trips of each
   * checkpoint were the burst the changed documents waited behind). The documents are as of the head either way;
   * only the stored position follows, and it is never lost: a stop before it leaves those events to apply again.
   */
  describe('checkpoints of projections an append left unchanged', () => {
    it('are stored later, while the projections it changed store theirs at once', async () => {
      const { projector: started, head } = await startedAtHead({ unchangedCheckpointDelayMs: 60_000 });
      const watchesBefore = await readStore.find('watches', {});
      // A serial's registration changes the serials and the transparency log, and no watch, collection or option table.
      const position = await appendAll(eventStore, [serialRegistered('LATER-0001', { reference: 'TMP-1', collection: 'tempo' })]);
      await started.waitFor(position, 5_000);
      await until('the serials checkpoint', async () => (await stored(readStore))['serials']?.position === position);
      const checkpoints = await stored(readStore);
      expect(checkpoints['serials']).to.deep.equal({ position, confirmedHead: position });
      expect(checkpoints['transparency-log']).to.deep.equal({ position, confirmedHead: position });
      for (const unchanged of ['watches', 'collections', 'configurators']) {
        expect(checkpoints[unchanged], unchanged).to.deep.equal({ position: head, confirmedHead: head });
      }
      expect(await readStore.find('watches', {})).to.deep.equal(watchesBefore);
    });

    it('follow within the delay, confirming the head', async () => {
      const { projector: started } = await startedAtHead({ unchangedCheckpointDelayMs: 50 });
      const position = await appendAll(eventStore, [serialRegistered('LATER-0002', { reference: 'TMP-1', collection: 'tempo' })]);
      await started.waitFor(position, 5_000);
      const waited = performance.now();
      await until('every checkpoint at the append', async () => Object.values(await stored(readStore)).every((s) => s.position === position));
      expect(performance.now() - waited, 'the delay is not cut short to nothing, nor far longer').to.be.within(0, 2_000);
      for (const [name, checkpoint] of Object.entries(await stored(readStore))) {
        expect(checkpoint, name).to.deep.equal({ position, confirmedHead: position });
      }
    });

    it('are stored at once by the next append that changes them, at its position', async () => {
      const { projector: started } = await startedAtHead({ unchangedCheckpointDelayMs: 60_000 });
      await appendAll(eventStore, [serialRegistered('LATER-0003', { reference: 'TMP-1', collection: 'tempo' })]);
      // TMP-1 is at 12,500.00 EUR in the history (support/history.ts).
      const position = await appendAll(eventStore, [watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
      await started.waitFor(position, 5_000);
      await until('the watches checkpoint', async () => (await stored(readStore))['watches']?.position === position);
      expect((await stored(readStore))['watches']).to.deep.equal({ position, confirmedHead: position });
    });

    it('are never lost: a projector stopped before storing them applies those events again on its next start', async () => {
      const { projector: first, head } = await startedAtHead({ unchangedCheckpointDelayMs: 60_000 });
      const position = await appendAll(eventStore, [serialRegistered('LATER-0004', { reference: 'TMP-1', collection: 'tempo' })]);
      await first.waitFor(position, 5_000);
      await first.stop();
      projector = undefined;
      expect((await stored(readStore))['watches']?.position, 'left unstored by the stop').to.equal(head);
      projector = createProjector({ eventStore, readStore, queue, logger, pollIntervalMs: 60_000 });
      await projector.catchUp();
      for (const [name, checkpoint] of Object.entries(await stored(readStore))) {
        expect(checkpoint, name).to.deep.equal({ position, confirmedHead: position });
      }
      expect(await snapshot(readStore)).to.deep.equal(await rebuiltFrom(eventStore));
    });
  });
});
