/**
 * Starts the read API over a given read store: the public app on PORT (Koa serves every request: rate limits,
 * metrics, answer cache and the discovery routes given) and the operations app on OPS_PORT. Shared by
 * `read-api/main.ts` and the all-in-one server, which differ only in where the read store comes from. `close()`
 * stops accepting connections, lets the requests in flight finish, then stops the clock.
 */
import type { FreshnessTickets } from '../shared/ports/freshness-tickets.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Config } from '../shared/config/config.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { ReadStore } from '../shared/ports/read-store.ts';
import type { HeardMove } from '../shared/ports/read-model-changes.ts';
import { createPublicApp } from './app.ts';
import { createOpsApp } from './ops/ops-app.ts';
import { createMetricsRegistry, metricsMiddleware, rateLimitMetrics, type MetricSources } from './ops/metrics.ts';
import { createRateLimits } from './rate-limit/rate-limits.ts';
import { answerSigner } from './signing/sign-answers.ts';
import type { AnswerCheckpoint } from './transparency/answer-checkpoint.ts';
import type { ResponseSigningKeys } from './signing/signing-keys.ts';
import type { OperationEnv, PublicBrand } from '../shared/read-model/public-api/operations/public-operation.ts';
import { readSnapshotStates } from '../shared/read-model/projections/projection-states.ts';
import { startReadModelClock } from '../shared/read-model/public-api/read-model-clock.ts';
import { readModelStanding } from '../shared/read-model/public-api/answer-policy.ts';
import { parkedProjectionsMetric } from '../shared/metrics/parked-projections.ts';
import { freshnessTicketsMetric, readModelFreshnessMetrics } from './ops/read-model-freshness.ts';
import { PROJECTION_NAMES, READ_MODEL_PROJECTIONS } from '../shared/read-model/projections/index.ts';
import { LeaseWatch } from '../shared/read-model/projections/lease-watch.ts';
import { leasesOf, ownerlessProjections } from '../shared/read-model/projections/lease-ownership.ts';
import { DEFAULT_LEASE_TTL_MS } from '../shared/read-model/projections/lease.ts';
import { rateLimitModeMetric } from './ops/rate-limit-mode.ts';
import { countedSigner } from './ops/signing-metrics.ts';
import { listen } from '../shared/http/listen.ts';
import { WITH_CORS } from './middleware/front-door.ts';
import { serverTimeouts } from '../shared/http/server-timeouts.ts';
import { closingFaultyFraming } from '../shared/http/faulty-framing.ts';
import { PROCESS_IDENTITY } from '../shared/process/process-identity.ts';

export interface ReadApiOptions {
  config: Config;
  logger: Logger;
  readStore: ReadStore;
  brand: PublicBrand;
  /** The key that signs answers on request (signing/signing-keys.ts); its public half is served by the discovery routes. */
  signingKeys: ResponseSigningKeys;
  /** Shares the rate limits between processes (a client from rate-limit/rate-limit-redis.ts); per-process limits without it. */
  rateLimitRedis?: Redis;
  extraRoutes?: Koa.Middleware[];
  /** Projection, lag and queue figures for /metrics, where this process has them (the all-in-one server). */
  metricSources?: MetricSources;
  /**
   * How often the projections' states are read (default 100 ms). Cached answers can lag a projection by this
   * much, so the all-in-one server, whose states are in memory, reads them far more often.
   */
  positionPollMs?: number;
  /** How old the latest states may be before that poll reads again (read-model-clock.ts, `pollAfterMs`). */
  positionPollAfterMs?: () => number;
  /** How long a request waiting for its `X-Min-Position` waits for another's reading (read-model-clock.ts, `waitingPollMs`). */
  positionWaitingPollMs?: () => number | undefined;
  /** The deployment's freshness tickets (ports/freshness-tickets.ts): a confirmation's age is then bounded by its ticket. */
  freshnessTickets?: FreshnessTickets;
  /**
   * Longest time a client may take to send a whole request, head and body, on the public and operations ports
   * (default 15 s, see shared/http/server-timeouts.ts); a slower one gets 408 and its connection is closed.
   */
  requestTimeoutMs?: number;
  /** Further routes on the operations port. */
  opsRoutes?: Koa.Middleware[];
  /** The transparency log's tree that a signed answer pins, by its data's position, where this process serves the log. */
  checkpoint?: AnswerCheckpoint;
  /** A serial's status proved in the serial index, where this process signs the log (`proof=index` of verify). */
  serialIndex?: OperationEnv['serialIndex'];
  /** Whether the projectors' queue (Redis) can be reached now, where they have one: readiness says when it cannot. */
  queueReachable?: () => boolean;
}

export interface RunningReadApi {
  server: Server;
  opsServer: Server;
  /** What /metrics shows; other parts of the process may count into it. */
  registry: Registry;
  /**
   * Reads the projections' states now, instead of at the next poll (a test, a tool that just wrote them, a
   * projector's word of a move: no read when what it names is served already).
   */
  refreshReadModels(moved?: HeardMove): Promise<void>;
  close(): Promise<void>;
}

/** How long requests in flight get to finish when the API stops, both servers together. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Stops accepting, lets requests in flight finish, then ends. Node keeps a keep-alive connection open after its
 * last answer even while closing, so idle connections are swept until the server is closed; after `graceMs`
 * whatever is left is cut.
 */
function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Requests Node cannot parse (a raw non-ASCII byte in the request line, a head above 16 KiB, an authority-form
 * target) never reach the app; Node would answer them with an empty body. They get the contract's error shape
 * too, with the front door's headers: its CORS ones always, since whether the request had an `Origin` is unknown.
 */
const FRONT_HEADERS = WITH_CORS.map(([name, value]) => `${name}: ${value}\r\n`).join('');

function answerUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  const [status, detail] = error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
  answerRaw(socket, status, detail);
}

/** Node hands a CONNECT request (authority-form target) to no request handler: it names nothing this API serves. */
const refuseConnect = (_request: unknown, socket: Duplex) => answerRaw(socket, 400, 'Bad Request');

function answerRaw(socket: Duplex, status: number, detail: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ detail });
  socket.end(`HTTP/1.1 ${status} ${detail}\r\n${FRONT_HEADERS}Content-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export async function startReadApi(options: ReadApiOptions): Promise<RunningReadApi> {
  const { config, logger, readStore } = options;
  let shuttingDown = false;
  // Every snapshot read shows this process the projections' leases: one it has seen unchanged for a whole lease has
  // no live owner, by this process's own clock (lease-watch.ts), whatever expiry its holder wrote.
  const leaseWatch = new LeaseWatch();
  let ownerless: string[] = [];
  const readStates = async () => {
    const reading = await readSnapshotStates(readStore);
    ownerless = ownerlessProjections(leaseWatch, leasesOf(reading.view.control, PROJECTION_NAMES), performance.now(), DEFAULT_LEASE_TTL_MS);
    return reading;
  };
  const clock = await startReadModelClock(readStates, {
    ...(options.positionPollMs ? { intervalMs: options.positionPollMs } : {}),
    ...(options.positionPollAfterMs ? { pollAfterMs: options.positionPollAfterMs } : {}),
    ...(options.positionWaitingPollMs ? { waitingPollMs: options.positionWaitingPollMs } : {}),
    ...(options.freshnessTickets ? {
      tickets: options.freshnessTickets,
      onTicketsCurrent: (current: boolean) => {
        if (current) logger.info('freshness tickets taken again: checkpoint writes that land late are judged by their tickets');
        else logger.warn({ alert: 'freshness tickets away' }, 'no freshness ticket taken lately (Redis away?): confirmations are judged by their owner\'s age alone until they are back');
      },
    } : {}),
    maxLagMs: config.READ_MODEL_MAX_LAG_SECONDS * 1_000,
    freshAnswerMaxLagMs: config.VERIFY_MAX_LAG_SECONDS * 1_000,
    // A poll still running when the stop closes the store fails by design (MongoClientClosedError): no warning.
    onError: (error) => {
      if (!shuttingDown) logger.warn({ err: error }, 'read-model position poll failed');
    },
  });
  // The transparency log's tiles are no read model of the operations: its routes refuse until it has a checkpoint.
  const served = READ_MODEL_PROJECTIONS.map(({ name }) => name);
  const readModels = () => readModelStanding(clock, served);
  const registry = createMetricsRegistry(options.metricSources);
  parkedProjectionsMetric(registry, () => clock.parked);
  readModelFreshnessMetrics(registry, () => clock.projections());
  freshnessTicketsMetric(registry, () => clock.ticketsCurrent());
  const rateLimits = createRateLimits({
    config, logger, metrics: rateLimitMetrics(registry), ...(options.rateLimitRedis ? { redis: options.rateLimitRedis } : {}),
  });
  rateLimitModeMetric(registry, () => rateLimits.mode());
  const app = createPublicApp({
    readStore, clock, config, logger, brand: options.brand,
    // Limits counted per process while Redis is down are a degradation too (issue 7: status says so), and so is a
    // read model that is not built or not fresh (docs/api.md, "Honest answers").
    health: () => (readModels().degraded || rateLimits.mode() === 'degraded' ? 'degraded' : 'ok'),
    metrics: metricsMiddleware(registry),
    signing: countedSigner(answerSigner(options.signingKeys.current, options.checkpoint && pinningOrNone(options.checkpoint, logger), config), registry),
    rateLimits,
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
    ...(options.serialIndex ? { serialIndex: options.serialIndex } : {}),
  });
  const opsApp = createOpsApp({
    registry,
    ...(options.opsRoutes ? { extraRoutes: options.opsRoutes } : {}),
    readiness: async () => {
      let store = 'ok';
      try {
        await readStore.ping();
      } catch (error) {
        // The raw text may name hosts or credentials: the log has it, the answer only says what state it is in.
        logger.warn({ err: error }, 'read store ping failed');
        store = 'unreachable';
      }
      const { unbuilt, parked, projections, fresh } = readModels();
      // The queue down and a read model stale: its projector cannot be told to catch up (issue 40).
      const queue = options.queueReachable?.() === false ? 'unreachable' : 'ok';
      const stranded = queue === 'unreachable' && !fresh;
      const ready = !shuttingDown && store === 'ok' && parked.length === 0 && unbuilt.length === 0 && ownerless.length === 0 && !stranded;
      return {
        ready,
        checks: {
          read_store: store, parked_projections: parked, unbuilt_projections: unbuilt, ownerless_projections: ownerless, queue,
          projections, position: clock.current(), shutting_down: shuttingDown,
        },
      };
    },
  });
  const timeouts = serverTimeouts(options.requestTimeoutMs);
  const server = createServer(
    timeouts,
    closingFaultyFraming(app.callback()),
  );
  server.on('clientError', answerUnparsable);
  server.on('connect', refuseConnect);
  const opsServer = createServer(timeouts, closingFaultyFraming(opsApp.callback()));
  opsServer.on('clientError', answerUnparsable);
  await listen(server, config.PORT, config.HOST, 'PORT');
  await listen(opsServer, config.OPS_PORT, config.OPS_HOST, 'OPS_PORT');
  logger.info({ port: config.PORT, opsPort: config.OPS_PORT, instance: PROCESS_IDENTITY.instance }, 'read API listening');
  return {
    server,
    opsServer,
    registry,
    refreshReadModels: (moved) => clock.refresh(moved),
    close: async () => {
      shuttingDown = true;
      // Readiness says 503 from here on, and the public port still answers while load balancers notice.
      if (config.SHUTDOWN_DRAIN_SECONDS > 0) await delay(config.SHUTDOWN_DRAIN_SECONDS * 1_000);
      // One grace for both servers (the ops port keeps answering readiness until the public one is closed), so the
      // whole stop stays within the process's shutdown deadline.
      const deadline = Date.now() + CLOSE_GRACE_MS;
      await closeGracefully(server, CLOSE_GRACE_MS);
      await closeGracefully(opsServer, Math.max(0, deadline - Date.now()));
      clock.stop();
    },
  };
}

/**
 * The tree a signed answer pins, or none when the log cannot be read now (the store away a moment): the answer is then
 * signed without `Watchcat-Checkpoint`, as an answer of a log that has no checkpoint yet is, rather than refused with
 * a 500 after its data was read; a warning says why.
 */
function pinningOrNone(checkpoint: AnswerCheckpoint, logger: Logger): AnswerCheckpoint {
  return (position) => checkpoint(position).catch((error: unknown) => {
    logger.warn({ err: error }, 'signing: the transparency log could not be read; the answer pins no checkpoint');
    return undefined;
  });
}
