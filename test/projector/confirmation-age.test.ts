/**
 * A projector confirms the head it read once it has applied and stored it; every API process counts the data's age
 * from then (shared/read-model/public-api/read-model-clock.ts). Applying a batch takes time, and an owner can be paused
 * within its lease (10 s by default, longer than a verification's 5 s bound) between the read and the write: the
 * confirmation carries how long that was, on the owner's own monotonic clock (`age_ms`, control-docs.ts), so that a
 * confirmation written late is not taken as fresh data.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { createProjector } from '../../projector/runner.ts';
import { appendAll, catalogueHistory } from './support/history.ts';

const PAUSE_MS = 3_000;

describe('head confirmations', () => {
  it('say how long before their checkpoint\'s write the head was read, on the owner\'s monotonic clock (a pause after the read)', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const head = await appendAll(eventStore, catalogueHistory(3));
    const readStore = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    // The owner's monotonic clock jumps by PAUSE_MS after every read of the history: a pause while it holds its lease.
    let paused = 0;
    const clock = { monotonic: () => performance.now() + paused, wall: () => Date.now() };
    const pausing: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        const events = await eventStore.readAll(range);
        paused += PAUSE_MS;
        return events;
      },
    });
    const projector = createProjector({ eventStore: pausing, readStore, queue, logger: pino({ level: 'silent' }), clock });
    try {
      await projector.catchUp();
      const states = await readProjectionStates(readStore);
      expect(states.map((state) => state.name)).to.include('serials');
      for (const state of states) {
        expect(state.confirmed?.head, state.name).to.equal(head);
        // At least the pause after the read that reached the head; at most every pause of the run (the projections
        // run side by side on the one clock) and a second of this machine's own time.
        expect(state.confirmed?.age_ms, state.name).to.be.at.least(PAUSE_MS).and.at.most(paused + 1_000);
      }
    } finally {
      await projector.stop();
      await queue.close();
      await eventStore.close();
    }
  });

  it('name the latest freshness ticket their owner read before the read that reached the head, not one read after it', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    await appendAll(eventStore, catalogueHistory(3));
    const readStore = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    // The ticket the owner knows rises once each read of the history has answered: the one known when a read is
    // sent is the number of reads before it. One projection, so its reads are the only ones.
    let n = 0;
    const clock = { monotonic: () => performance.now(), wall: () => Date.now(), ticket: () => ({ epoch: 'e', n }) };
    const counting: EventStore = Object.assign(Object.create(eventStore) as EventStore, {
      readAll: async (range: Parameters<EventStore['readAll']>[0]) => {
        const events = await eventStore.readAll(range);
        n += 1;
        return events;
      },
    });
    const projector = createProjector({
      eventStore: counting, readStore, queue, logger: pino({ level: 'silent' }), clock, projections: [serialsProjection], batchSize: 2,
    });
    try {
      await projector.catchUp();
      const [state] = await readProjectionStates(readStore);
      expect(state?.name).to.equal('serials');
      expect(n, 'reads of the history, in batches of 2').to.be.at.least(3);
      // The last read reached the head: the ticket known before it, n - 1; n was known only once it had answered.
      expect(state?.confirmed?.ticket).to.deep.equal({ epoch: 'e', n: n - 1 });
    } finally {
      await projector.stop();
      await queue.close();
      await eventStore.close();
    }
  });
});
