/**
 * Read-model changes over Redis pub/sub: one channel, the move as JSON (a bare projection name from a projector of an
 * earlier release is heard as the projection alone, as is anything else that is not a move). The publisher fails
 * fast while Redis is away (the word is lost, the replicas' poll covers it); the subscriber reconnects and
 * subscribes again by itself (ioredis re-subscribes on reconnect).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import type { HeardMove, ReadModelChanges } from '../ports/read-model-changes.ts';
import { createRedisClient } from './redis-connection.ts';

export const READ_MODEL_CHANNEL = 'watchcat:read-model-moved';

export function redisReadModelChanges(url: string, logger: Logger): ReadModelChanges {
  let publisher: Redis | undefined;
  let subscriber: Redis | undefined;
  const listeners = new Set<(move: HeardMove) => void>();
  /**
   * Subscribed once: from then on ioredis subscribes again each time it is ready after a reconnection (a word in
   * that moment is lost like any other: the poll covers it).
   */
  let subscribed = false;
  return {
    announce(move) {
      // Connected at the first word (which its connection may lose): a process that only listens opens none.
      if (!publisher) {
        publisher = createRedisClient(url, 'client');
        publisher.on('error', (error: Error) => logger.debug({ err: error }, 'read-model change announcements: Redis error'));
      }
      publisher.publish(READ_MODEL_CHANNEL, JSON.stringify(move)).catch(() => undefined);
    },
    subscribe(listener) {
      listeners.add(listener);
      if (!subscriber) {
        subscriber = createRedisClient(url, 'subscriber');
        subscriber.on('message', (_channel: string, message: string) => {
          const move = heardMove(message);
          for (const each of listeners) each(move);
        });
        subscriber.on('error', (error: Error) => logger.debug({ err: error }, 'read-model change subscription: Redis error'));
        subscriber.subscribe(READ_MODEL_CHANNEL).then(() => { subscribed = true; }, (error: unknown) =>
          logger.warn({ err: error }, 'could not subscribe to read-model changes; polling alone'));
      }
      return () => listeners.delete(listener);
    },
    hearing: () => subscribed && subscriber?.status === 'ready',
    async close() {
      listeners.clear();
      publisher?.disconnect();
      subscriber?.disconnect();
    },
  };
}

/** The move a message says, or the message as a projection's name (see the header). */
export function heardMove(message: string): HeardMove {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return { projection: message };
  }
  if (typeof parsed !== 'object' || parsed === null) return { projection: message };
  const { projection, generation, position } = parsed as Record<string, unknown>;
  if (typeof projection !== 'string') return { projection: message };
  return Number.isSafeInteger(generation) && Number.isSafeInteger(position)
    ? { projection, generation: generation as number, position: position as number } : { projection };
}
