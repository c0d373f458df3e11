/**
 * What a process running the admin API says at start when `ADMIN_API_KEYS` is empty: the API runs but refuses
 * every request (401), and this is how to give it a key. One text for `npm start` and `start:services`, so they
 * and the README say the same.
 */
import type { Config } from '../../shared/config/config.ts';
import type { Logger } from '../../shared/logging/logger.ts';

export const KEYLESS_ADMIN_WARNING = 'ADMIN_API_KEYS is empty: the admin API refuses every request (401). Give it a key per scope'
  + ' and start again: ADMIN_API_KEYS="$(openssl rand -hex 24):catalogue,$(openssl rand -hex 24):serials,$(openssl rand -hex 24):audit"';

export function warnIfKeyless(config: Pick<Config, 'ADMIN_API_KEYS'>, logger: Logger): void {
  if (config.ADMIN_API_KEYS.trim() === '') logger.warn(KEYLESS_ADMIN_WARNING);
}
