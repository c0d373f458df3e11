/**
 * The read API alone (`npm run start:api`): public app and operations port over the MongoDB read store that the
 * projector processes fill (MONGODB_URL, required: it refuses to start on an in-memory store that nothing would ever
 * fill), rate limits shared through Redis when REDIS_URL is set. A composition root:
 * it alone picks adapters. SIGTERM/SIGINT stop accepting, finish the requests in flight, then close the store.
 */
import { loadConfigOrExit } from '../shared/config/load-or-exit.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { createReadStore } from '../shared/adapters/read-store.factory.ts';
import { publicBrand } from '../shared/brand.ts';
import { onShutdownSignal } from '../shared/process/shutdown.ts';
import { exitIfPortUnavailable } from '../shared/process/exit-if-port-unavailable.ts';
import { discoveryRoutes } from './discovery/discovery-routes.ts';
import { publicOperations } from '../shared/read-model/public-api/operations/index.ts';
import { loadSigningKeys } from './signing/signing-keys.ts';
import { startReadApi } from './server.ts';
import { redisReadModelChanges } from '../shared/adapters/redis-read-model-changes.ts';
import { freshnessTicketsFor } from '../shared/adapters/freshness-tickets.factory.ts';
import { loadLogKeys } from './transparency/log-key.ts';
import { indexProofs, startTransparencyLog } from './transparency/log-publisher.ts';
import { serialVrfFile } from './transparency/serial-vrf-file.ts';
import { checkpointFile } from './transparency/checkpoint-file.ts';
import { answerCheckpoint } from './transparency/answer-checkpoint.ts';
import { transparencyRoutes } from './transparency/transparency-routes.ts';
import { transparencyLogMetrics } from './transparency/log-metrics.ts';
import { transparencyLogOrigin } from './transparency/log-origin.ts';
import { parseWitnessList } from '../shared/read-model/transparency/witness-client.ts';
import { transparencyLogProjection } from '../shared/read-model/projections/transparency-log.projection.ts';

/** How old the states and the log may get between the polls that cover a lost word, while the word is heard. */
const WORD_HEARD_POLL_MS = 1_000;
/** How often requests waiting for their `X-Min-Position` read the states themselves while the word is heard (a word lost). */
const WORD_HEARD_WAITING_POLL_MS = 100;

const config = loadConfigOrExit('read-api');
const logger = createLogger(config.LOG_LEVEL, 'read-api');
if (!config.MONGODB_URL) {
  // Its in-memory store would stay empty: no projector runs in this process, and none elsewhere can reach it.
  logger.fatal('the read API alone serves the read models of a MongoDB that projectors fill: set MONGODB_URL (and run '
    + '`npm run start:projector`), or run `npm start` for the whole service in one process on the embedded defaults');
  process.exit(2);
}
const [signingKeys, logKeys] = await Promise.all([loadSigningKeys(config), loadLogKeys(config)]).catch((error: unknown) => {
  logger.fatal({ err: error }, 'read API did not start');
  process.exit(1);
});
const readStore = await createReadStore(config);
// The projectors' word that a read model moved: read at once, not at the next poll (best effort). While it is heard,
// the polls of the states and of the log only cover a word lost, once a second: at scale, their reads every 100
// and 200 ms were most of the store's load, which every append's writes waited behind (issue 29).
const changes = config.REDIS_URL ? redisReadModelChanges(config.REDIS_URL, logger) : undefined;
const pollAfterMs = () => (changes?.hearing() ? WORD_HEARD_POLL_MS : 0);
// Bounds each confirmation's age by a ticket its projector read before the head, whatever its write's delay.
const freshnessTickets = await freshnessTicketsFor(config, logger, 'one role');
// The log's tiles are a projection the projectors keep; every API process signs checkpoints of it with the one log
// key of the deployment (TRANSPARENCY_LOG_KEY), the store deciding which signature of a size is kept. Each keeps the
// newest checkpoint it signed or served in its DATA_DIR, outside the store that a restore takes back.
const transparency = await startTransparencyLog({
  readStore, record: checkpointFile(config.DATA_DIR), key: logKeys.privateKey, previousKey: logKeys.previousKey, history: logKeys.history, origin: transparencyLogOrigin(config, logger), logger,
  vrfMemo: (vrfPublicKey) => serialVrfFile(config.DATA_DIR, vrfPublicKey),
  lookAfterMs: pollAfterMs, witnesses: { witnesses: parseWitnessList(config.TRANSPARENCY_WITNESSES) },
});
const redis = config.REDIS_URL
  // Loaded only when used: ioredis costs tens of milliseconds at every start.
  ? (await import('./rate-limit/rate-limit-redis.ts')).connectRateLimitRedis(config.REDIS_URL, logger) : undefined;
const api = await exitIfPortUnavailable('read-api', logger, startReadApi({
  config,
  logger,
  readStore,
  brand: publicBrand(config),
  signingKeys,
  ...(redis ? { rateLimitRedis: redis } : {}),
  positionPollAfterMs: pollAfterMs,
  ...(freshnessTickets ? { freshnessTickets } : {}),
  // Woken by the refresh on the word; their own reads of the store only cover a word lost (10 ms without the word).
  positionWaitingPollMs: () => (changes?.hearing() ? WORD_HEARD_WAITING_POLL_MS : undefined),
  ...(changes ? { queueReachable: () => changes.hearing() } : {}),
  // A tree holding nothing after the answer's data; none while the log is parked (answer-checkpoint.ts).
  checkpoint: answerCheckpoint(transparency),
  serialIndex: indexProofs(transparency),
  extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks }), transparencyRoutes(transparency, config.MIN_POSITION_WAIT_MS)],
}));
transparencyLogMetrics(api.registry, transparency);

const stopListening = changes?.subscribe((move) => {
  api.refreshReadModels(move).catch((error: unknown) => logger.debug({ err: error }, 'read-model refresh on a change failed'));
  if (move.projection === transparencyLogProjection.name) void transparency.look();
});

onShutdownSignal(logger, 'read API', async () => {
  stopListening?.();
  await changes?.close();
  await api.close();
  await transparency.stop();
  await freshnessTickets?.close();
  redis?.disconnect();
  await readStore.close();
});
