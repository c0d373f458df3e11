/**
 * The EventStoreDB append feed: a `$all` subscription filtered to our streams that only signals. In client v6 a
 * gRPC error on a subscription only emits `'error'` and ends it (`dist/streams/utils/Subscription.js`), so after a
 * server restart, a leader change or a network drop the feed would go silent. This one subscribes again from the
 * last position it saw, after a growing pause, until it is stopped.
 */
import { END, streamNameFilter, type AllStreamSubscription, type Position } from '@eventstore/db-client';
import { STREAM_PREFIXES } from '../../ports/event-store.ts';
import type { EventStoreDbClient } from './client.ts';

export interface ResubscribeBackoff {
  /** Pause before the first new attempt after a drop, in milliseconds. */
  firstMs: number;
  /** Longest pause between attempts, in milliseconds. */
  maxMs: number;
}

export const DEFAULT_RESUBSCRIBE_BACKOFF: ResubscribeBackoff = { firstMs: 100, maxMs: 5_000 };

/** Pause before attempt `attempt` (1 for the first attempt after a drop): doubling, capped. */
export function resubscribeDelayMs(attempt: number, backoff: ResubscribeBackoff): number {
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** (attempt - 1));
}

export function followAppends(client: EventStoreDbClient, listener: () => void, backoff: ResubscribeBackoff): () => void {
  let stopped = false;
  let lastSeen: Position | undefined;
  /** Attempts since the feed was last confirmed live; the backoff only resets on the server's confirmation. */
  let failedAttempts = 0;
  let current: AllStreamSubscription | undefined;
  let timer: NodeJS.Timeout | undefined;

  const subscribe = (): void => {
    const subscription = client.subscribeToAll({
      fromPosition: lastSeen ?? END,
      filter: streamNameFilter({ prefixes: [...STREAM_PREFIXES] }),
    });
    current = subscription;
    subscription.on('confirmation', () => {
      failedAttempts = 0;
      // Live from here. Appends stored before (while subscribing, or while the feed was down before it saw any
      // event) are not delivered: one signal covers them, since readers read from their own checkpoint.
      listener();
    });
    subscription.on('data', (resolved) => {
      if (resolved.event) lastSeen = resolved.event.position;
      listener();
    });
    const dropped = (reason: string): void => {
      if (stopped || current !== subscription) return;
      current = undefined;
      void subscription.unsubscribe().catch(() => undefined);
      failedAttempts += 1;
      const delay = resubscribeDelayMs(failedAttempts, backoff);
      process.emitWarning(`EventStoreDB feed dropped (${reason}); subscribing again in ${delay} ms`);
      timer = setTimeout(subscribe, delay);
      timer.unref();
    };
    subscription.on('error', (error) => dropped(error.message));
    subscription.on('end', () => dropped('the server ended the subscription'));
  };

  subscribe();
  return () => {
    stopped = true;
    clearTimeout(timer);
    void current?.unsubscribe().catch(() => undefined);
    current = undefined;
  };
}
