/**
 * Picks the freshness tickets (ports/freshness-tickets.ts) from the configuration: Redis's counter when `REDIS_URL`
 * is set, shared by every replica and projector of the deployment. Without it, a process that both projects and
 * serves (`npm start`) counts its own when its read store is MongoDB, whose writes can land late; its in-memory
 * store's cannot, and it takes none. Processes without any judge freshness by the owner's `age_ms` alone.
 */
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { FreshnessTickets } from '../ports/freshness-tickets.ts';

export async function freshnessTicketsFor(
  config: Pick<Config, 'REDIS_URL' | 'MONGODB_URL'>, logger: Logger, process: 'projects and serves' | 'one role',
): Promise<FreshnessTickets | undefined> {
  if (config.REDIS_URL) {
    const { redisFreshnessTickets } = await import('./redis-freshness-tickets.ts');
    return redisFreshnessTickets(config.REDIS_URL, (error) => logger.debug({ err: error }, 'freshness tickets: Redis error'));
  }
  if (process === 'one role' || !config.MONGODB_URL) return undefined;
  const { memoryFreshnessTickets } = await import('./memory-freshness-tickets.ts');
  return memoryFreshnessTickets();
}
