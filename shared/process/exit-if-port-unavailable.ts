/**
 * A port in use at start is an operator's matter, as a bad setting is (shared/config/load-or-exit.ts): the process
 * ends with one line on stderr naming the setting and the port, no stack, exit code 2 (issue 42, item 7). Lines
 * already logged are written first, so the reason is the last line.
 */
import { BAD_CONFIGURATION_EXIT_CODE } from '../config/load-or-exit.ts';
import { PortUnavailable } from '../http/listen.ts';
import type { Logger } from '../logging/logger.ts';

/** `starting`, or the end of the process when it fails for a port it cannot have; any other failure goes on as it is. */
export async function exitIfPortUnavailable<T>(processName: string, logger: Logger, starting: Promise<T>): Promise<T> {
  try {
    return await starting;
  } catch (error) {
    if (!(error instanceof PortUnavailable)) throw error;
    logger.flush();
    process.stderr.write(`${processName}: ${error.message}\n`);
    return process.exit(BAD_CONFIGURATION_EXIT_CODE);
  }
}
