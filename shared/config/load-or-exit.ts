/**
 * The configuration of a process main: a bad setting is an operator's typo, not a crash, so it ends the process
 * with one line on stderr naming every bad setting, no stack, and exit code 2 (the shell's "misused" code, apart
 * from the 1 of a failure at run time).
 */
import { InvalidConfiguration, loadConfig, type Config, type ProcessDefaults } from './config.ts';

export const BAD_CONFIGURATION_EXIT_CODE = 2;

export function loadConfigOrExit(processName: string, defaults: ProcessDefaults = {}): Config {
  try {
    return loadConfig(process.env, defaults);
  } catch (error) {
    if (!(error instanceof InvalidConfiguration)) throw error;
    process.stderr.write(`${processName}: ${error.message}\n`);
    process.exit(BAD_CONFIGURATION_EXIT_CODE);
  }
}
