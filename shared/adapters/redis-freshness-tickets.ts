/**
 * Freshness tickets (ports/freshness-tickets.ts) from a counter in Redis, shared by every replica and projector of
 * the deployment. The epoch is set beside the counter (one hash), in the same transaction as each ticket taken, so a
 * Redis that restarted empty starts a new epoch with its new count. Commands fail fast while Redis is away (a `client`
 * connection): a replica then takes no ticket and a projector reads none, so data is judged older, never fresher.
 *
 * A Redis may also come back with its keys but an older count: restarted from an RDB snapshot or an AOF synced every
 * second, or a replica promoted before every write reached it. Its epoch key is the one it had, so the epoch also
 * names the server process that answered (its `run_id`, read in the same transaction, new at every start and other on
 * every other server): numbers given again after such a restart or failover are of another epoch, never compared.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FreshnessTicket, FreshnessTickets } from '../ports/freshness-tickets.ts';
import { createRedisClient } from './redis-connection.ts';

/**
 * The epoch and the count, fields of one hash: a maxmemory policy over all keys (allkeys-random, allkeys-lru) evicts
 * them together, never the count alone under an epoch kept, which would give its numbers again.
 */
export const TICKET_KEY = 'watchcat:freshness-ticket';

export function redisFreshnessTickets(url: string, onError: (error: Error) => void): FreshnessTickets {
  let redis: Redis | undefined;
  // Connected at the first use: a process that never takes nor reads a ticket opens no connection.
  const connection = () => {
    if (!redis) {
      redis = createRedisClient(url, 'client');
      redis.on('error', onError);
    }
    return redis;
  };
  const results = (replies: [Error | null, unknown][] | null): unknown[] => {
    if (!replies) throw new Error('freshness ticket: the transaction was not run');
    return replies.map(([error, value]) => {
      if (error) throw error;
      return value;
    });
  };
  /** The epoch key as stored, of the server process that answered (`INFO server`'s `run_id`). */
  const epochOf = (stored: unknown, info: unknown): string => {
    const runId = /^run_id:([0-9a-f]+)\r?$/m.exec(String(info))?.[1];
    if (!runId) throw new Error('freshness ticket: the server did not say its run_id');
    return `${String(stored)}@${runId}`;
  };
  return {
    async take() {
      const [, n, epoch, info] = results(await connection().multi()
        .hsetnx(TICKET_KEY, 'epoch', randomUUID()).hincrby(TICKET_KEY, 'n', 1).hget(TICKET_KEY, 'epoch').info('server').exec());
      return { epoch: epochOf(epoch, info), n: Number(n) };
    },
    async latest(): Promise<FreshnessTicket | undefined> {
      const [[epoch, n], info] = results(await connection().multi().hmget(TICKET_KEY, 'epoch', 'n').info('server').exec()) as [
        [string | null, string | null], string,
      ];
      return epoch === null || n === null ? undefined : { epoch: epochOf(epoch, info), n: Number(n) };
    },
    async close() {
      redis?.disconnect();
    },
  };
}
