/**
 * The projector alone (`npm run start:projector`): projection jobs over the configured event store, read store
 * and queue (BullMQ when REDIS_URL is set, so several projector processes share the work). A composition root:
 * it alone picks adapters. SIGTERM/SIGINT stop taking signals, let the running batches finish, then close the
 * queue (its worker waits for the running job) and the stores. On HEALTH_PORT (loopback unless HEALTH_HOST says
 * otherwise, default 9466): `GET /healthz` tells whether every projection is running and owned (projector-health.ts),
 * `GET /metrics` is for Prometheus (projector-metrics.ts).
 */
import { openEventStore } from '../shared/adapters/event-store.factory.ts';
import { createJobQueue } from '../shared/adapters/job-queue.factory.ts';
import { createReadStore } from '../shared/adapters/read-store.factory.ts';
import { projectionsNamed } from '../shared/config/config.ts';
import { loadConfigOrExit } from '../shared/config/load-or-exit.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { startHealthServer } from '../shared/process/health-server.ts';
import { onShutdownSignal } from '../shared/process/shutdown.ts';
import { exitIfPortUnavailable } from '../shared/process/exit-if-port-unavailable.ts';
import { PROCESS_IDENTITY } from '../shared/process/process-identity.ts';
import { PROJECTION_RETRY_POLICY } from './retry-policy.ts';
import { createProjector } from './runner.ts';
import { projectorMetrics } from './projector-metrics.ts';
import { projectorHealth } from './projector-health.ts';
import { readProjectionStates } from '../shared/read-model/projections/projection-states.ts';
import { redisReadModelChanges } from '../shared/adapters/redis-read-model-changes.ts';
import { freshnessTicketsFor } from '../shared/adapters/freshness-tickets.factory.ts';
import { ticketedClock } from './ticket-watch.ts';

// A health port of its own kind (the admin API's is 9465), so both run on one machine with the defaults.
const config = loadConfigOrExit('projector', { HEALTH_PORT: 9466 });
const logger = createLogger(config.LOG_LEVEL, 'projector');
const eventStore = await openEventStore(config);
const readStore = await createReadStore(config);
const queue = await createJobQueue(config, PROJECTION_RETRY_POLICY, {
  concurrency: 4,
  onError: (error) => logger.warn({ err: error }, 'job queue error'),
});
// API replicas read their snapshot again on this word instead of at their next poll.
const changes = config.REDIS_URL ? redisReadModelChanges(config.REDIS_URL, logger) : undefined;
// Each confirmation names the latest ticket read before its head, which bounds its age for the replicas.
const freshnessTickets = await freshnessTicketsFor(config, logger, 'one role');
const tickets = freshnessTickets && await ticketedClock(freshnessTickets, logger);
const metrics = projectorMetrics({
  states: () => readProjectionStates(readStore), eventStore, queue, counters: () => projector.counters(),
  ...(tickets ? { ticketCurrent: tickets.current } : {}),
});
const projector = createProjector({
  eventStore, readStore, queue, logger,
  ...(tickets ? { clock: tickets.clock } : {}),
  // A worker may be given some projections only (the others run elsewhere): PROJECTIONS names them.
  projections: projectionsNamed(config.PROJECTIONS),
  leaseTtlMs: config.PROJECTION_LEASE_SECONDS * 1_000,
  onBatch: (projection, seconds, stored) => {
    metrics.onBatch(projection, seconds);
    changes?.announce({ projection, ...stored });
  },
});
projector.start();
// Unhealthy while a projection is parked on an event it cannot apply (named, with the event's position and the
// reason), has no live owner, or is stale while the queue is down: the container's status then shows it. The job
// counters say what the jobs met (parked skips, leases held or lost, conflicts, engine retries).
const health = await exitIfPortUnavailable('projector', logger, startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, projectorHealth({
  projector, queue, headPosition: () => eventStore.headPosition(), staleAfterMs: config.READ_MODEL_MAX_LAG_SECONDS * 1_000,
}), metrics.registry));
logger.info({ projections: projector.positions(), healthPort: health.port, instance: PROCESS_IDENTITY.instance }, 'projector started');

onShutdownSignal(logger, 'projector', async () => {
  await health.close();
  await projector.stop();
  await queue.close();
  await changes?.close();
  tickets?.stop();
  await freshnessTickets?.close();
  await readStore.close();
  await eventStore.close();
  logger.info({ positions: projector.positions() }, 'projections at stop');
});
