/**
 * Issue 29, item 2: a projector process's /metrics (projector/projector-metrics.ts, served on its HEALTH_PORT) shows
 * each projection's position, the store's head, the lag in events, the queue depth, the job counters and the batch
 * durations. On main at 204df55 the projector served only a JSON /healthz. Expected figures come from the event
 * store (its head, the events appended after) and from the batch size, never from the projector.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { serialRegistered } from '../fixtures/events.ts';
import { createInlineJobQueue } from '../../shared/adapters/inline-job-queue.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { createProjector } from '../../projector/runner.ts';
import { projectorMetrics } from '../../projector/projector-metrics.ts';
import type { ProjectorCounters } from '../../projector/projector.ts';
import { appendAll, catalogueHistory } from './support/history.ts';

const PROJECTIONS = ['watches', 'collections', 'configurators', 'serials'];

/** The samples of one metric in Prometheus text format, by their label text (`projection="serials"`, or ''). */
function samples(text: string, metric: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${metric}(?:\\{([^}]*)\\})? (\\S+)$`).exec(line);
    if (match) found.set(match[1] ?? '', Number(match[2]));
  }
  return found;
}

describe('projector metrics', () => {
  it('show position, head, lag in events, queue depth, counters and one batch duration per batch applied', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const readStore = createMemoryReadStore();
    const queue = createInlineJobQueue({ attempts: 3, backoffMs: 5 });
    const batchSize = 7;
    // The metrics read the counters of the projector made after them, as projector/main.ts wires them.
    const counters = () => projector.counters();
    const metrics = projectorMetrics({ states: () => readProjectionStates(readStore), eventStore, queue, counters });
    const projector = createProjector({ eventStore, readStore, queue, logger: pino({ level: 'silent' }), batchSize, onBatch: metrics.onBatch });
    try {
      const head = await appendAll(eventStore, catalogueHistory(30));
      await projector.catchUp();
      let text = await metrics.registry.metrics();
      for (const name of PROJECTIONS) {
        const label = `projection="${name}"`;
        expect(samples(text, 'projection_position').get(label), name).to.equal(head);
        expect(samples(text, 'projection_lag_events').get(label), name).to.equal(0);
        expect(samples(text, 'projection_lag_seconds').get(label), name).to.equal(0);
        expect(samples(text, 'projection_batch_duration_seconds_count').get(label), name).to.equal(Math.ceil(head / batchSize));
      }
      expect(samples(text, 'event_store_head_position').get('')).to.equal(head);
      expect(samples(text, 'projection_queue_depth').get('')).to.equal(0);
      for (const counter of ['projection_jobs_handed_back_total', 'projection_lease_losses_total']) expect(samples(text, counter).get(''), counter).to.equal(0);
      expect(samples(text, 'projection_parked_position').size, 'no series while nothing is parked').to.equal(0);

      await appendAll(eventStore, ['A', 'B', 'C'].map((n) => serialRegistered(`LAG-000${n}`)));
      // Past the one-second window in which a scrape's store figures are shared.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      text = await metrics.registry.metrics();
      for (const name of PROJECTIONS) expect(samples(text, 'projection_lag_events').get(`projection="${name}"`), name).to.equal(3);
      expect(samples(text, 'event_store_head_position').get('')).to.equal(head + 3);
    } finally {
      await projector.stop();
      await queue.close();
      await eventStore.close();
    }
  });

  it('show whether the worker reads freshness tickets now, and nothing of them without tickets', async () => {
    const eventStore = openSqliteEventStore(':memory:');
    const queue = createInlineJobQueue({ attempts: 1, backoffMs: 1 });
    const states = async () => [];
    const counters = (): ProjectorCounters => ({ parkedSkips: 0, leaseHeld: 0, leaseLost: 0, conflicts: 0, retries: 0, handedBack: 0 });
    try {
      let current = true;
      const withTickets = projectorMetrics({ states, eventStore, queue, counters, ticketCurrent: () => current });
      expect(samples(await withTickets.registry.metrics(), 'projector_freshness_ticket_current').get('')).to.equal(1);
      current = false;
      expect(samples(await withTickets.registry.metrics(), 'projector_freshness_ticket_current').get(''), 'the counter away').to.equal(0);
      const without = projectorMetrics({ states, eventStore, queue, counters });
      expect(samples(await without.registry.metrics(), 'projector_freshness_ticket_current').size).to.equal(0);
    } finally {
      await queue.close();
      await eventStore.close();
    }
  });
});
