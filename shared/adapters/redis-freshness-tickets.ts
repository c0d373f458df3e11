/**
 * Freshness tickets (ports/freshness-tickets.ts) from a counter in Redis, shared by every replica and projector of
 * the deployment. The epoch is set beside the counter, in the same transaction as each ticket taken, so a Redis that
 * restarted empty starts a new epoch with its new count. Commands fail fast while Redis is away (a `client`
 * connection): a replica then takes no ticket and a projector reads none, so data is judged older, never fresher.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FreshnessTicket, FreshnessTickets } from '../ports/freshness-tickets.ts';
import { createRedisClient } from './redis-connection.ts';

export const TICKET_EPOCH_KEY = 'watchcat:freshness-ticket:epoch';
export const TICKET_COUNTER_KEY = 'watchcat:freshness-ticket:n';

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
  return {
    async take() {
      const [, epoch, n] = results(await connection().multi()
        .set(TICKET_EPOCH_KEY, randomUUID(), 'NX').get(TICKET_EPOCH_KEY).incr(TICKET_COUNTER_KEY).exec());
      return { epoch: String(epoch), n: Number(n) };
    },
    async latest(): Promise<FreshnessTicket | undefined> {
      const [epoch, n] = results(await connection().multi().get(TICKET_EPOCH_KEY).get(TICKET_COUNTER_KEY).exec());
      return epoch === null || n === null ? undefined : { epoch: String(epoch), n: Number(n) };
    },
    async close() {
      redis?.disconnect();
    },
  };
}
