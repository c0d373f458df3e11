/**
 * The projector alone (`npm run start:projector`): projection jobs over the configured event store, read store
 * and queue (BullMQ when REDIS_URL is set, so several projector processes share the work). A composition root:
 * it alone picks adapters. SIGTERM/SIGINT stop taking signals, let the running batches finish, then close the
 * queue (its worker waits for the running job) and the stores.
 */
import { openEventStore } from '../shared/adapters/event-store.factory.ts';
import { createJobQueue } from '../shared/adapters/job-queue.factory.ts';
import { createReadStore } from '../shared/adapters/read-store.factory.ts';
import { loadConfig } from '../shared/config/config.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { createProjector } from './runner.ts';

/** A poison event is retried five times over about half a minute before its projection is marked failed. */
const RETRY_POLICY = { attempts: 5, backoffMs: 1_000 };

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL, 'projector');
const eventStore = openEventStore(config);
const readStore = await createReadStore(config);
const queue = createJobQueue(config, RETRY_POLICY, {
  concurrency: 4,
  onError: (error) => logger.warn({ err: error }, 'job queue error'),
});
const projector = createProjector({ eventStore, readStore, queue, logger });
projector.start();
logger.info({ projections: projector.positions() }, 'projector started');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'projector stopping');
  await projector.stop();
  await queue.close();
  await readStore.close();
  await eventStore.close();
  logger.info({ positions: projector.positions() }, 'projector stopped');
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    shutdown(signal).then(() => process.exit(0), (error: unknown) => {
      logger.error({ err: error }, 'projector did not stop cleanly');
      process.exit(1);
    });
  });
}
