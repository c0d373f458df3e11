/**
 * Prometheus metrics of a projector process, on its operations port (HEALTH_PORT). Positions, lag and parked state
 * are read from the store when Prometheus scrapes, so every worker shows the same figures whichever holds a lease
 * (rules take `max by (projection)`); job counters and batch durations are this worker's own (rules `sum` them).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EventStore } from '../shared/ports/event-store.ts';
import type { JobQueue } from '../shared/ports/job-queue.ts';
import type { ProjectionState } from '../shared/read-model/projections/projection-states.ts';
import { createProcessRegistry } from '../shared/metrics/process-registry.ts';
import { parkedProjectionsMetric } from '../shared/metrics/parked-projections.ts';
import { projectionLag, type ProjectionLag } from '../shared/metrics/projection-lag.ts';
import type { ProjectorCounters } from './projector.ts';

interface ProjectorMetricSources {
  /** The projections' states in the store (projection-states.ts). */
  states: () => Promise<ProjectionState[]>;
  eventStore: EventStore;
  queue: JobQueue;
  /** This worker's job counters (`Projector.counters()`). */
  counters: () => ProjectorCounters;
  /**
   * Whether this worker reads freshness tickets now, so that its confirmations name one (ticket-watch.ts); absent
   * without tickets.
   */
  ticketCurrent?: () => boolean;
}

interface ProjectorMetrics {
  registry: Registry;
  /** Give to `createProjector({ onBatch })`. */
  onBatch(projection: string, seconds: number): void;
}

const BATCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** One scrape reads every gauge: the states and lags are read once for all of them. */
const SCRAPE_MS = 1_000;

export function projectorMetrics(sources: ProjectorMetricSources): ProjectorMetrics {
  const registry = createProcessRegistry();
  const lagOf = projectionLag(sources.eventStore);
  // A store that cannot answer leaves these gauges out of the scrape; the process's own figures still go.
  const figures = onceWithin(SCRAPE_MS, () => storeFigures(sources, lagOf).catch((): StoreFigures => ({ lags: [] })));
  const perProjection = (name: string, help: string, value: (figure: { state: ProjectionState; lag: ProjectionLag }) => number | undefined) =>
    new Gauge({
      name, help, labelNames: ['projection'], registers: [registry],
      async collect() {
        const { lags } = await figures();
        this.reset();
        for (const figure of lags) {
          const measured = value(figure);
          if (measured !== undefined) this.set({ projection: figure.state.name }, measured);
        }
      },
    });
  perProjection('projection_position', 'Position of the last event applied in the live generation, per projection', ({ state }) => state.position);
  perProjection('projection_lag_events', 'Events in the store not yet applied, per projection (only where the store counts events)', ({ lag }) => lag.events);
  perProjection('projection_lag_seconds', 'Age of the oldest event not yet applied, per projection (0 when caught up)', ({ lag }) => lag.seconds);
  new Gauge({
    name: 'event_store_head_position', help: 'Position of the last event in the event store', registers: [registry],
    async collect() {
      const { head } = await figures();
      this.reset();
      if (head !== undefined) this.set(head);
    },
  });
  parkedProjectionsMetric(registry, async () => (await figures()).lags.flatMap(({ state }) =>
    state.parked ? [{ name: state.name, position: state.parked.position, reason: state.parked.reason }] : []));
  new Gauge({
    name: 'projection_queue_depth', help: 'Projection jobs waiting in the queue', registers: [registry],
    async collect() { this.set(await sources.queue.depth()); },
  });
  const { ticketCurrent } = sources;
  if (ticketCurrent) {
    // While 0 (the counter away: Redis down), its confirmations name no ticket and the API processes judge them by
    // their age alone, a checkpoint write that lands late included (docs/api.md, "Honest answers").
    new Gauge({
      name: 'projector_freshness_ticket_current',
      help: 'Whether this worker read a freshness ticket lately (1), so that its confirmations name one, or not (0: the counter is away)',
      registers: [registry],
      collect() { this.set(Number(ticketCurrent())); },
    });
  }
  const counter = (name: string, help: string, key: keyof ProjectorCounters) => new Counter({
    name, help, registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.counters()[key]);
    },
  });
  counter('projection_jobs_handed_back_total', 'Jobs that met engine errors for longer than a lease and handed their projection back to the queue', 'handedBack');
  counter('projection_lease_losses_total', 'Jobs ended because a newer owner took the lease', 'leaseLost');
  counter('projection_lease_waits_total', 'Times a job found the lease held by another worker and waited', 'leaseHeld');
  counter('projection_engine_retries_total', 'Retries after an engine error', 'retries');
  counter('projection_write_conflicts_total', 'Batches abandoned on a write conflict and read again', 'conflicts');
  const batches = new Histogram({
    name: 'projection_batch_duration_seconds', help: 'Time to read, apply and checkpoint one batch of events, per projection',
    labelNames: ['projection'], buckets: BATCH_BUCKETS, registers: [registry],
  });
  return { registry, onBatch: (projection, seconds) => batches.observe({ projection }, seconds) };
}

interface StoreFigures {
  lags: { state: ProjectionState; lag: ProjectionLag }[];
  head?: number;
}

async function storeFigures(sources: ProjectorMetricSources, lagOf: (position: number) => Promise<ProjectionLag>): Promise<StoreFigures> {
  const states = await sources.states();
  // Projections mostly stand at the same position: the store is asked once per distinct one.
  const byPosition = new Map<number, Promise<ProjectionLag>>();
  for (const { position } of states) if (!byPosition.has(position)) byPosition.set(position, lagOf(position));
  const lags = await Promise.all(states.map(async (state) => ({ state, lag: await byPosition.get(state.position)! })));
  return { lags, head: await sources.eventStore.headPosition() };
}

/** `read`, shared by every caller within `ms` of the first, so that one scrape's gauges read the store once. */
function onceWithin<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ms) last = { at: now, value: read() };
    return last.value;
  };
}
