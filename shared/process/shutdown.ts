/**
 * One clean shutdown on the first SIGTERM or SIGINT; a second signal while stopping forces the exit, and so does a
 * stop that outlasts its deadline, so the process always ends before the orchestrator's own kill (Docker waits
 * `stop_grace_period`, 30 s in infra/docker-compose.yml, then sends SIGKILL).
 */
import type { Logger } from '../logging/logger.ts';

/** The whole stop (servers, queue, stores) must fit in this; kept well below the 30 s grace of the compose file. */
export const SHUTDOWN_DEADLINE_MS = 20_000;

export function onShutdownSignal(logger: Logger, name: string, stop: () => Promise<void>, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, `${name}: second signal, exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    setTimeout(() => {
      logger.error({ deadlineMs }, `${name} did not stop within its deadline, exiting now`);
      process.exit(1);
    }, deadlineMs).unref();
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
