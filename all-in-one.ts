/**
 * The whole service in one process (`npm start`): command services with the admin API, the projector, and the
 * public read API with its operations port, over the adapters the configuration picks (embedded defaults: SQLite
 * file, in-memory read store, in-process queue, in-memory rate limits). A composition root: it alone wires
 * adapters to ports and may import from every folder.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Config } from './shared/config/config.ts';
import type { Logger } from './shared/logging/logger.ts';
import type { ReadStore } from './shared/ports/read-store.ts';
import type { EventStore } from './shared/ports/event-store.ts';
import type { MemoryReadStore } from './shared/adapters/memory-read-store.ts';
import type { ReadModelSnapshots } from './shared/adapters/read-model-snapshot/read-model-snapshots.ts';
import { openEventStore } from './shared/adapters/event-store.factory.ts';
import { listen } from './shared/http/listen.ts';
import { PROCESS_IDENTITY } from './shared/process/process-identity.ts';
import { createReadStore } from './shared/adapters/read-store.factory.ts';
import { createJobQueue } from './shared/adapters/job-queue.factory.ts';
import { createCommandService } from './services/write/command-service.ts';
import { seedDemo, seedLeftUndone } from './services/import/seed-demo.ts';
import { createAdminApp } from './services/admin/admin-app.ts';
import { createAdminServer } from './services/admin/admin-server.ts';
import { warnIfKeyless } from './services/admin/keyless-warning.ts';
import { adminAuthMetrics } from './services/admin/admin-metrics.ts';
import { adminAuth } from './services/admin/require-scope.ts';
import { projectionsAuditRoute } from './services/audit/projections-audit.route.ts';
import { createProjector } from './projector/runner.ts';
import { ticketedClock } from './projector/ticket-watch.ts';
import { freshnessTicketsFor } from './shared/adapters/freshness-tickets.factory.ts';
import { PROJECTION_RETRY_POLICY } from './projector/retry-policy.ts';

import { startReadApi } from './read-api/server.ts';
import { projectionLag } from './shared/metrics/projection-lag.ts';
import { publicOperations } from './shared/read-model/public-api/operations/index.ts';
import { discoveryRoutes } from './read-api/discovery/discovery-routes.ts';
import { loadSigningKeys } from './read-api/signing/signing-keys.ts';
import { loadLogKeys } from './read-api/transparency/log-key.ts';
import { answerCheckpoint } from './read-api/transparency/answer-checkpoint.ts';
import { checkpointFile } from './read-api/transparency/checkpoint-file.ts';
import { serialVrfFile } from './read-api/transparency/serial-vrf-file.ts';
import { indexProofs, startTransparencyLog } from './read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from './read-api/transparency/transparency-routes.ts';
import { transparencyLogMetrics } from './read-api/transparency/log-metrics.ts';
import { transparencyLogOrigin } from './read-api/transparency/log-origin.ts';
import { parseWitnessList } from './shared/read-model/transparency/witness-client.ts';
import { publicBrand } from './shared/brand.ts';

export interface RunningWatchcat {
  /** Ports actually bound (useful when the configuration asked for port 0). */
  ports: { public: number; ops: number; admin: number };
  /** The read models this process serves (auditors compare them with a rebuild). */
  readStore: ReadStore;
  close(): Promise<void>;
}

export async function startWatchcat(config: Config, logger: Logger): Promise<RunningWatchcat> {
  // First, so that a bad key stops the start before anything is opened.
  const signingKeys = await loadSigningKeys(config);
  const logKeys = await loadLogKeys(config);
  const eventStore = await openEventStore(config);
  const readStore = await createReadStore(config);
  const snapshots = await readModelSnapshotsFor(config, readStore, eventStore, logger);
  const queue = await createJobQueue(config, PROJECTION_RETRY_POLICY);
  // What the projector stores is served at once, not at the API's next poll (which MongoDB's checkpoints pace).
  let readModelsMoved = (): void => undefined;
  // Each confirmation names the latest ticket read before its head, which bounds its age for the API.
  const freshnessTickets = await freshnessTicketsFor(config, logger, 'projects and serves');
  const tickets = freshnessTickets && await ticketedClock(freshnessTickets, logger);

  const projector = createProjector({
    eventStore, readStore, queue, logger, leaseTtlMs: config.PROJECTION_LEASE_SECONDS * 1_000, onBatch: () => readModelsMoved(),
    ...(tickets ? { clock: tickets.clock } : {}),
  });
  const commands = createCommandService(eventStore, { actor: 'admin-api' });

  if (config.SEED_DEMO && (await seedLeftUndone(eventStore))) {
    logger.info({ head: await eventStore.headPosition() }, 'event store empty or holding part of the demo seed: loading the demo catalogue');
    const report = await seedDemo(commands);
    logger.info({ commands: report.commands, events: report.events, position: report.position }, 'demo catalogue loaded');
  }
  // The read models are built before the first request, so nobody is served an empty catalogue: from a snapshot
  // of them when a valid one is there, and the events after it.
  await snapshots?.load();
  await projector.catchUp();
  projector.start();
  snapshots?.start();

  // The log is a projection, built by the catch-up above; this process signs its checkpoints.
  const transparency = await startTransparencyLog({
    readStore, record: checkpointFile(config.DATA_DIR), vrfMemo: (vrfPublicKey) => serialVrfFile(config.DATA_DIR, vrfPublicKey), key: logKeys.privateKey, previousKey: logKeys.previousKey, history: logKeys.history, origin: transparencyLogOrigin(config, logger), logger,
    witnesses: { witnesses: parseWitnessList(config.TRANSPARENCY_WITNESSES) },
  });
  const redis: Redis | undefined = config.REDIS_URL
    // Loaded only when used: ioredis costs tens of milliseconds at every start.
    ? (await import('./read-api/rate-limit/rate-limit-redis.ts')).connectRateLimitRedis(config.REDIS_URL, logger) : undefined;
  const api = await startReadApi({
    config, logger, readStore,
    brand: publicBrand(config),
    signingKeys,
    ...(redis ? { rateLimitRedis: redis } : {}),
    ...(freshnessTickets ? { freshnessTickets } : {}),
    // In-memory checkpoints cost next to nothing to read; MongoDB ones are read at the default pace.
    ...(config.MONGODB_URL ? {} : { positionPollMs: 5 }),
    // A tree holding nothing after the answer's data; none while the log is parked (answer-checkpoint.ts).
    checkpoint: answerCheckpoint(transparency),
    serialIndex: indexProofs(transparency),
    opsRoutes: [projectionsAuditRoute({ eventStore, live: readStore, auth: adminAuth(config) })],
    extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks }), transparencyRoutes(transparency, config.MIN_POSITION_WAIT_MS)],
    metricSources: {
      projections: () => projector.status().map((p) => ({ name: p.name, position: p.position, failed: p.status === 'parked' })),
      lag: projectionLag(eventStore),
      queueDepth: () => queue.depth(),
    },
  });
  readModelsMoved = () => {
    api.refreshReadModels().catch((error: unknown) => logger.debug({ err: error }, 'read-model refresh on a change failed'));
  };
  transparencyLogMetrics(api.registry, transparency);
  const adminServer = createAdminServer(createAdminApp(commands, config, logger, {
    authMetrics: adminAuthMetrics(api.registry), entryBundles: { eventStore, readStore },
  }));
  const adminPort = await listen(adminServer, config.ADMIN_PORT, config.ADMIN_HOST, 'ADMIN_PORT');
  const address = (server: Server) => (server.address() as { port: number }).port;
  logger.info({ port: address(api.server), adminPort, instance: PROCESS_IDENTITY.instance }, 'watchcat is serving');
  warnIfKeyless(config, logger);

  return {
    ports: { public: address(api.server), ops: address(api.opsServer), admin: adminPort },
    readStore,
    async close() {
      // Readiness turns false and in-flight requests finish first; then the projector and the stores go.
      await api.close();
      await transparency.stop();
      await new Promise<void>((resolve) => adminServer.close(() => resolve()));
      await projector.stop();
      await snapshots?.stop().catch((error: unknown) => logger.warn({ err: error }, 'could not write the read-model snapshot at stop'));
      await queue.close();
      tickets?.stop();
      await freshnessTickets?.close();
      redis?.disconnect();
      await readStore.close();
      await eventStore.close();
    },
  };
}

/** The snapshots of the embedded read store (none with MongoDB, which keeps its read models itself). */
async function readModelSnapshotsFor(config: Config, readStore: ReadStore, eventStore: EventStore, logger: Logger): Promise<ReadModelSnapshots | undefined> {
  if (config.MONGODB_URL || config.READ_SNAPSHOT_SECONDS === 0) return undefined;
  const { readModelSnapshots } = await import('./shared/adapters/read-model-snapshot/read-model-snapshots.ts');
  return readModelSnapshots({
    file: join(config.DATA_DIR, 'read-models.snapshot'),
    store: readStore as MemoryReadStore,
    eventStore, logger,
    intervalMs: config.READ_SNAPSHOT_SECONDS * 1_000,
  });
}
