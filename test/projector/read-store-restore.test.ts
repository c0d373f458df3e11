/**
 * The read store restored from an older copy (a MongoDB backup put back) under a projector that keeps running. The
 * copy's checkpoints may carry the very lease token the running owner still holds (taken after it took its standing
 * lease): its writes are fenced by that token alone, so nothing refuses them. The owner must then carry on from the
 * restored checkpoint, projecting again what the copy lacks, never store its own later position over documents that
 * do not reflect it: the registry would answer AUTHENTIC, fresh, for a serial stolen after the copy, for good.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialReportedStolen, watchPriceChanged, watchStockChanged } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { NewEvent } from '../../shared/ports/event-store.ts';
import { leaseId, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { createProjector } from '../../projector/runner.ts';
import { restorableReadStore } from '../support/restorable-read-store.ts';
import { appendAll, catalogueHistory, snapshot } from './support/history.ts';

const logger = pino({ level: 'silent' });

async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs a started projector over a restorable store: a history, a copy taken under its standing leases, a theft and
 * a price change after the copy, then the copy put back and `afterRestore` appended (if any). Once every projection
 * confirms the head again, its documents must be those of a rebuild of the whole history.
 */
async function restoredUnderProjector(afterRestore: readonly NewEvent[]): Promise<void> {
  const eventStore = openSqliteEventStore(':memory:');
  const queue = createInlineJobQueue({ attempts: 3, backoffMs: 5 });
  const { store, backup, restore } = restorableReadStore([...new Set(PROJECTIONS.map((projection) => projection.collection))]);
  const projector = createProjector({ eventStore, readStore: store, queue, logger, pollIntervalMs: 100, backoff: { firstMs: 2, maxMs: 10 } });
  try {
    await appendAll(eventStore, catalogueHistory(5));
    await projector.catchUp();
    projector.start();
    // Every projection's lease standing with this worker: the copy is taken under the tokens it goes on holding.
    await until('standing leases', async () => {
      const control = await store.readControl();
      return PROJECTIONS.every(({ name }) => (control.find((doc) => doc._id === leaseId(name)) as LeaseDoc | undefined)?.standing === true);
    });
    const copy = backup();

    let head = await appendAll(eventStore, [serialReportedStolen('TMP-00003'), watchPriceChanged('TMP-1', 1_300_000, 1_250_000)]);
    await until('the changes projected', async () => (await readProjectionStates(store)).every((state) => state.position === head));
    restore(copy);
    if (afterRestore.length > 0) head = await appendAll(eventStore, afterRestore);

    // The owner goes on (it confirms its head every second, and a signal comes every 100 ms): once every
    // projection says it reflects the head and confirmed it, the documents are those of the whole history.
    await until('every projection confirms the head again', async () =>
      (await readProjectionStates(store)).every((state) => state.position === head && state.confirmed?.head === head));
    const expected = createMemoryReadStore();
    await rebuild({ eventStore, readStore: expected });
    expect(await store.get('serials', 'TMP-00003'), 'the serial stolen after the copy').to.deep.include({ status: 'stolen' });
    expect(await snapshot(store), 'every document').to.deep.equal(await snapshot(expected));
  } finally {
    await projector.stop();
    await queue.close();
    await eventStore.close();
  }
}

describe('a read store restored from an older copy under a running projector', function () {
  this.timeout(30_000);

  it('is projected again from the copy\'s checkpoints, nothing appended since', () => restoredUnderProjector([]));

  it('is projected again from the copy\'s checkpoints when an event comes right after the restore', () =>
    restoredUnderProjector([watchStockChanged('TMP-1', 'low_stock')]));
});
