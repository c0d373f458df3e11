/** Starts the public app on a free port over the in-memory read store, instrumented, filled with the fixture catalogue. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../shared/config/config.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import { createPublicApp, type PublicAppDeps } from '../../../read-api/app.ts';
import type { HealthStatus, PublicBrand } from '../../../shared/read-model/public-api/operations/public-operation.ts';
import { readSnapshotStates } from '../../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock, type PolledReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { instrumentReadStore, type InstrumentedReadStore } from './instrumented-read-store.ts';
import { loadFixtureCatalogue } from './catalogue-fixture.ts';
import { confirmAgain } from '../../support/confirm-again.ts';

export const TEST_BRAND: PublicBrand = {
  name: 'Maison Test', tagline: { en: 'Test watches since 1900', fr: 'Montres de test depuis 1900' },
  country: 'CH', founded: 1900, website: 'https://maison-test.example',
};

export interface TestApp {
  url: string;
  store: InstrumentedReadStore;
  clock: PolledReadModelClock;
  health: { status: HealthStatus };
  close(): Promise<void>;
}

export async function startTestApp(overrides: Partial<PublicAppDeps> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const store = instrumentReadStore(createMemoryReadStore());
  await loadFixtureCatalogue(store);
  // A verification's bound long enough for a suite on a busy machine: no projector confirms the fixture again after
  // the start below (the freshness tests set their own bound).
  const config = loadConfig({ VERIFY_MAX_LAG_SECONDS: '60', ...env });
  // The tests refresh the clock themselves; the timer stays out of their way.
  const clock = await startReadModelClock(() => readSnapshotStates(store), {
    intervalMs: 60_000, freshAnswerMaxLagMs: config.VERIFY_MAX_LAG_SECONDS * 1_000,
  });
  // A confirmation this process sees happen, as from a projector running beside it: the registry is fresh.
  await confirmAgain(store);
  await clock.refresh();
  const health = { status: 'ok' as HealthStatus };
  const app = createPublicApp({
    readStore: store, clock, config, logger: createLogger('silent', 'test'), health: () => health.status,
    brand: TEST_BRAND, ...overrides,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    clock,
    health,
    close: async () => {
      clock.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
