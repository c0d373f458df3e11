/**
 * `npm run start:services`: the admin API alone, over the configured event store. Stops cleanly on SIGTERM or
 * SIGINT: no new connections, requests in flight finish, then the store is closed. On HEALTH_PORT (loopback unless
 * HEALTH_HOST says otherwise, default 9465): `GET /healthz` for the container's healthcheck, `GET /metrics` for
 * Prometheus (commands by outcome, failed authentications).
 */
import { openEventStore } from '../shared/adapters/event-store.factory.ts';
import { createReadStore } from '../shared/adapters/read-store.factory.ts';
import { loadConfigOrExit } from '../shared/config/load-or-exit.ts';
import { listen } from '../shared/http/listen.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { startHealthServer } from '../shared/process/health-server.ts';
import { onShutdownSignal } from '../shared/process/shutdown.ts';
import { exitIfPortUnavailable } from '../shared/process/exit-if-port-unavailable.ts';
import { PROCESS_IDENTITY } from '../shared/process/process-identity.ts';
import { createAdminApp } from './admin/admin-app.ts';
import { createAdminServer } from './admin/admin-server.ts';
import { warnIfKeyless } from './admin/keyless-warning.ts';
import { createCommandService } from './write/command-service.ts';
import { adminAuthMetrics, commandMetrics } from './admin/admin-metrics.ts';
import { createProcessRegistry } from '../shared/metrics/process-registry.ts';

const config = loadConfigOrExit('watchcat-services');
const logger = createLogger(config.LOG_LEVEL, 'watchcat-services');
const store = await openEventStore(config);
// The transparency log's tiles say which events its leaves are (entry bundles for the `audit` scope); they are in
// the MongoDB the projectors fill, where there is one.
const readStore = config.MONGODB_URL ? await createReadStore(config) : undefined;
const registry = createProcessRegistry();
// A weak or malformed key was refused with the configuration, so the app's own check of the keys cannot throw here.
const app = createAdminApp(createCommandService(store, { actor: 'admin-api', onOutcome: commandMetrics(registry) }), config, logger, {
  authMetrics: adminAuthMetrics(registry),
  ...(readStore ? { entryBundles: { eventStore: store, readStore } } : {}),
});
warnIfKeyless(config, logger);

const server = createAdminServer(app);
const port = await exitIfPortUnavailable('watchcat-services', logger, listen(server, config.ADMIN_PORT, config.ADMIN_HOST, 'ADMIN_PORT'));
// Healthy while the admin API listens: the process has nothing else to report.
const health = await exitIfPortUnavailable('watchcat-services', logger, startHealthServer(
  config.HEALTH_PORT, config.HEALTH_HOST,
  () => ({ healthy: server.listening, checks: { admin_api: server.listening ? 'listening' : 'closed' } }),
  registry,
));
logger.info({ port, healthPort: health.port, instance: PROCESS_IDENTITY.instance }, 'admin API listening');

onShutdownSignal(logger, 'admin API', async () => {
  await health.close();
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  await closed;
  await readStore?.close();
  await store.close();
});
