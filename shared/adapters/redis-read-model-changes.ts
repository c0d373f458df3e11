/**
 * Read-model changes over Redis pub/sub: one channel, the projection's name as the message. The publisher fails
 * fast while Redis is away (the word is lost, the replicas' poll covers it); the subscriber reconnects and
 * subscribes again by itself (ioredis re-subscribes on reconnect).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import type { ReadModelChanges } from '../ports/read-model-changes.ts';
import { createRedisClient } from './redis-connection.ts';

export const READ_MODEL_CHANNEL = 'watchcat:read-model-moved';

export function redisReadModelChanges(url: string, logger: Logger): ReadModelChanges {
  let publisher: Redis | undefined;
  let subscriber: Redis | undefined;
  const listeners = new Set<(projection: string) => void>();
  /**
   * Subscribed once: from then on ioredis subscribes again each time it is ready after a reconnection (a word in
   * that moment is lost like any other: the poll covers it).
   */
  let subscribed = false;
  return {
    announce(projection) {
      // Connected at the first word (which its connection may lose): a process that only listens opens none.
      if (!publisher) {
        publisher = createRedisClient(url, 'client');
        publisher.on('error', (error: Error) => logger.debug({ err: error }, 'read-model change announcements: Redis error'));
      }
      publisher.publish(READ_MODEL_CHANNEL, projection).catch(() => undefined);
    },
    subscribe(listener) {
      listeners.add(listener);
      if (!subscriber) {
        subscriber = createRedisClient(url, 'subscriber');
        subscriber.on('message', (_channel: string, projection: string) => {
          for (const each of listeners) each(projection);
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
