/** One clean shutdown on the first SIGTERM or SIGINT; a second signal while stopping forces the exit. */
import type { Logger } from '../logging/logger.ts';

export function onShutdownSignal(logger: Logger, name: string, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, `${name}: second signal, exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    stop().then(
      () => {
        logger.info(`${name} stopped`);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, `${name} did not stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
