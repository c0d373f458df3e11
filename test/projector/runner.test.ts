import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { JobQueue } from '../../shared/ports/job-queue.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { CheckpointDoc, SerialDoc } from '../../shared/read-models/documents.ts';
import { createProjector, type Projector } from '../../projector/runner.ts';
import { rebuild } from '../../shared/projections/rebuild.ts';
import { PROJECTIONS } from '../../shared/projections/index.ts';
import { serialsProjection } from '../../shared/projections/serials.projection.ts';
import type { Projection } from '../../shared/projections/projection.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

const logger = pino({ level: 'silent' });

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
    expect(projector.positions()).to.deep.equal({ watches: head, collections: head, configurators: head, serials: head });
    const checkpoints = await readStore.find<CheckpointDoc>('checkpoints', {}, { sort: { _id: 1 } });
    expect(checkpoints.map((c) => [c._id, c.position, c.status])).to.deep.equal([
      ['collections', head, 'ok'], ['configurators', head, 'ok'], ['serials', head, 'ok'], ['watches', head, 'ok'],
    ]);
    expect(await snapshot(readStore)).to.deep.equal(await rebuiltFrom(eventStore));
  });

  it('follows the feed once started: an append is projected and waitFor resolves at its position', async () => {
    await appendAll(eventStore, catalogueHistory(2));
    projector = createProjector({ eventStore, readStore, queue, logger, pollIntervalMs: 60_000 });
    projector.start();
    const position = await appendAll(eventStore, [serialRegistered('LATE-0001', { reference: 'TMP-1', collection: 'tempo' })]);
    await projector.waitFor(position, 5_000);
    expect(await readStore.get('serials', 'LATE-0001')).to.include({ status: 'authentic', position });
  });

  it('waitFor rejects when the read models do not reach the position in time', async () => {
    projector = createProjector({ eventStore, readStore, queue, logger });
    let failure: unknown;
    await projector.waitFor(1_000, 30).catch((error: unknown) => { failure = error; });
    expect(String(failure)).to.match(/did not reach position 1000 within 30 ms/);
  });

  it('after a crash between a write and its checkpoint, a restart gives the documents of a clean rebuild', async () => {
    await appendAll(eventStore, catalogueHistory(25));
    // The third checkpoint write "crashes": the batch's documents are written, its checkpoint is not.
    let checkpointWrites = 0;
    const crashing: ReadStore = {
      ...readStore,
      write: async (collection, ops) => {
        if (collection === 'checkpoints' && ++checkpointWrites === 3) throw new Error('process killed');
        await readStore.write(collection, ops);
      },
    };
    const beforeCrash = createProjector({ eventStore, readStore: crashing, queue, logger, batchSize: 10, projections: [serialsProjection] });
    await beforeCrash.catchUp();
    const stored = await readStore.get<CheckpointDoc>('checkpoints', 'serials');
    expect(stored?.position).to.equal(20);
    expect(await readStore.get('serials', 'TMP-00015'), 'written before the crash').to.not.equal(null);

    projector = createProjector({ eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, batchSize: 10 });
    await projector.catchUp();
    expect(await snapshot(readStore)).to.deep.equal(await rebuiltFrom(eventStore));
  });

  it('a poison event stops only its projection, which ends failed after its retries while the others reach the head', async () => {
    const head = await appendAll(eventStore, [...catalogueHistory(5), serialRegistered('POISON-1'), serialRegistered('AFTER-1')]);
    const poisonPosition = head - 1;
    let attempts = 0;
    const faulty: Projection<SerialDoc> = {
      ...serialsProjection,
      apply(event, docs) {
        if (event.type === 'SerialRegistered' && event.data.serial === 'POISON-1') {
          attempts++;
          throw new Error('cannot read this serial');
        }
        return serialsProjection.apply(event, docs);
      },
    };
    const others = PROJECTIONS.filter((p) => p.name !== 'serials');
    projector = createProjector({ eventStore, readStore, queue, logger, projections: [...others, faulty], batchSize: 4 });
    projector.start();
    await projector.catchUp();
    const deadline = Date.now() + 5_000;
    while (projector.status().find((s) => s.name === 'serials')?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error(`serials never failed: ${JSON.stringify(projector.status())}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(attempts, 'first run plus the queue attempts').to.equal(1 + 3);
    const serials = projector.status().find((s) => s.name === 'serials');
    expect(serials?.position).to.be.below(poisonPosition);
    expect(serials?.error).to.equal(`projection serials cannot apply SerialRegistered at position ${poisonPosition}: cannot read this serial`);
    for (const other of others) expect(projector.positions()[other.name], other.name).to.equal(head);
    const checkpoint = await readStore.get<CheckpointDoc>('checkpoints', 'serials');
    expect(checkpoint).to.include({ status: 'failed', position: serials?.position, error: serials?.error });
    expect(await readStore.get('serials', 'AFTER-1')).to.equal(null);
    let waitFailure: unknown;
    await projector.waitFor(head, 1_000).catch((error: unknown) => { waitFailure = error; });
    expect(String(waitFailure)).to.match(/projection serials has failed/);
  });

  it('a failed projection that later applies its events again stores an ok checkpoint', async () => {
    const head = await appendAll(eventStore, [serialRegistered('FLAKY-1')]);
    let healthy = false;
    const flaky: Projection<SerialDoc> = {
      ...serialsProjection,
      apply(event, docs) {
        if (!healthy) throw new Error('store glitch');
        return serialsProjection.apply(event, docs);
      },
    };
    const first = createProjector({ eventStore, readStore, queue, logger, projections: [flaky] });
    first.start();
    const deadline = Date.now() + 5_000;
    while ((await readStore.get<CheckpointDoc>('checkpoints', 'serials'))?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error('never failed');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await first.stop();
    healthy = true;
    projector = createProjector({ eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 1 }), logger, projections: [flaky] });
    await projector.catchUp();
    expect(await readStore.get<CheckpointDoc>('checkpoints', 'serials')).to.include({ status: 'ok', position: head, error: null });
    expect(projector.status()).to.deep.equal([{ name: 'serials', position: head, status: 'ok', error: null }]);
  });
});
