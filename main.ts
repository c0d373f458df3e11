/** `npm start`: the whole service in one process; SIGINT/SIGTERM shut it down cleanly. */
import { startWatchcat } from './all-in-one.ts';
import { loadConfigOrExit } from './shared/config/load-or-exit.ts';
import { createLogger } from './shared/logging/logger.ts';
import { onShutdownSignal } from './shared/process/shutdown.ts';
import { exitIfPortUnavailable } from './shared/process/exit-if-port-unavailable.ts';

const config = loadConfigOrExit('watchcat');
const logger = createLogger(config.LOG_LEVEL, 'watchcat');
try {
  const running = await exitIfPortUnavailable('watchcat', logger, startWatchcat(config, logger));
  onShutdownSignal(logger, 'watchcat', () => running.close());
} catch (error) {
  logger.fatal({ err: error }, 'watchcat did not start');
  process.exit(1);
}
