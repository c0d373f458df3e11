/**
 * The configuration of a process main: a bad setting is an operator's typo, not a crash, so it ends the process
 * with one line on stderr naming every bad setting, no stack, and exit code 2 (the shell's "misused" code, apart
 * from the 1 of a failure at run time).
 */
import { InvalidConfiguration, loadConfig, type Config, type ProcessDefaults } from './config.ts';
import { withProjectDataDir } from './project-data-dir.ts';

export const BAD_CONFIGURATION_EXIT_CODE = 2;

export function loadConfigOrExit(processName: string, defaults: ProcessDefaults = {}): Config {
  try {
    // DATA_DIR read as the watchcat CLI reads it, so a command and a process started from other folders share one store.
    return withProjectDataDir(loadConfig(process.env, defaults));
  } catch (error) {
    if (!(error instanceof InvalidConfiguration)) throw error;
    process.stderr.write(`${processName}: ${error.message}\n`);
    process.exit(BAD_CONFIGURATION_EXIT_CODE);
  }
}
