/**
 * The configuration of a process main: a bad setting is an operator's typo, not a crash, so it ends the process
 * with one line on stderr naming every bad setting, no stack, and exit code 2 (the shell's "misused" code, apart
 * from the 1 of a failure at run time).
 */
import { InvalidConfiguration, loadConfig, type Config, type ProcessDefaults } from './config.ts';
import { withProjectDataDir } from './project-data-dir.ts';

export const BAD_CONFIGURATION_EXIT_CODE = 2;

/** What of the process it reads and ends: `process` itself, or a stand-in in tests. */
export interface ConfigHost {
  env: NodeJS.ProcessEnv;
  stderr: { write(text: string): unknown };
  exit(code: number): never;
}

export function loadConfigOrExit(processName: string, defaults: ProcessDefaults = {}, host: ConfigHost = process): Config {
  try {
    // DATA_DIR read as the watchcat CLI reads it, so a command and a process started from other folders share one store.
    return withProjectDataDir(loadConfig(host.env, defaults));
  } catch (error) {
    if (!(error instanceof InvalidConfiguration)) throw error;
    host.stderr.write(`${processName}: ${error.message}\n`);
    return host.exit(BAD_CONFIGURATION_EXIT_CODE);
  }
}
