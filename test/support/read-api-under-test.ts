/**
 * The real read API (`startReadApi`: public app with rate limits and discovery files, plus the operations port) on
 * free loopback ports over the in-memory read store filled with the API fixture catalogue, with its log lines kept
 * in memory so a test can check what was logged. Used by the reliability tests that attack the whole server.
 */
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import { pino } from 'pino';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { discoveryRoutes } from '../../read-api/discovery/discovery-routes.ts';
import { publicOperations } from '../../shared/read-model/public-api/operations/index.ts';
import { startReadApi, type ReadApiOptions, type RunningReadApi } from '../../read-api/server.ts';
import type { ResponseSigningKeys } from '../../read-api/signing/signing-keys.ts';
import type { AnswerCheckpoint } from '../../read-api/transparency/answer-checkpoint.ts';
import { loadFixtureCatalogue } from '../api/support/catalogue-fixture.ts';
import { confirmAgain } from './confirm-again.ts';
import { TEST_BRAND } from '../api/support/test-app.ts';
import { testSigningKeys } from './signing-keys.ts';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface ReadApiUnderTest {
  url: string;
  opsUrl: string;
  store: ReadStore;
  running: RunningReadApi;
  /** Every line logged so far, parsed. */
  logs: LogLine[];
  /** Log lines at error level or above. */
  errors(): LogLine[];
  close(): Promise<void>;
}

export interface ReadApiUnderTestOptions {
  /** Settings on top of the test defaults (loopback, free ports, limits high enough not to interfere). */
  env?: Record<string, string>;
  readStore?: ReadStore;
  rateLimitRedis?: Redis;
  requestTimeoutMs?: number;
  /** The keys that sign answers; a fresh one when not given. */
  signingKeys?: ResponseSigningKeys;
  /** Routes served beside the discovery files (the transparency log's, say). */
  extraRoutes?: Koa.Middleware[];
  /** The transparency log's tree a signed answer pins (read-api/transparency/answer-checkpoint.ts). */
  checkpoint?: AnswerCheckpoint;
  /** A serial's status proved in the serial index (verify's `proof=index`). */
  serialIndex?: ReadApiOptions['serialIndex'];
  /** Whether the projectors' queue can be reached (ReadApiOptions.queueReachable). */
  queueReachable?: () => boolean;
}

const urlOf = (running: { address(): AddressInfo | string | null }) => `http://127.0.0.1:${(running.address() as AddressInfo).port}`;

export async function startReadApiUnderTest(options: ReadApiUnderTestOptions = {}): Promise<ReadApiUnderTest> {
  const config = loadConfig({
    PORT: '0', OPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000',
    // No projector confirms the store again after the start below: a bound a busy machine's suite stays within.
    VERIFY_MAX_LAG_SECONDS: '60',
    ...options.env,
  });
  const logs: LogLine[] = [];
  const logger = pino({ level: 'debug', name: 'read-api-under-test' }, { write: (line: string) => { logs.push(JSON.parse(line) as LogLine); } });
  const store = options.readStore ?? createMemoryReadStore();
  if (!options.readStore) await loadFixtureCatalogue(store);
  const signingKeys = options.signingKeys ?? await testSigningKeys();
  const running = await startReadApi({
    config, logger, readStore: store, brand: TEST_BRAND, signingKeys,
    extraRoutes: [discoveryRoutes({ operations: publicOperations, config, jwks: signingKeys.jwks }), ...options.extraRoutes ?? []],
    ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
    ...(options.serialIndex ? { serialIndex: options.serialIndex } : {}),
    ...(options.rateLimitRedis ? { rateLimitRedis: options.rateLimitRedis } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.queueReachable ? { queueReachable: options.queueReachable } : {}),
  });
  // A confirmation the API sees happen, as from a projector running beside it: a registry confirmed before is fresh.
  await confirmAgain(store);
  await running.refreshReadModels();
  return {
    url: urlOf(running.server),
    opsUrl: urlOf(running.opsServer),
    store,
    running,
    logs,
    errors: () => logs.filter((line) => line.level >= 50),
    close: () => running.close(),
  };
}
