/**
 * What the EventStoreDB adapter reads off a resolved event: whether it is one of ours, and its `$all` position.
 */
import type { ResolvedEvent } from '@eventstore/db-client';
import { STREAM_PREFIXES } from '../../ports/event-store.ts';

/**
 * Only this service's events. System streams (`$...`) never match a prefix, and system event types are skipped
 * too: a hard-deleted stream of ours leaves a `$streamDeleted` record under the stream's own name, with no
 * metadata, which decoding would refuse forever.
 */
export function isOurs(event: { streamId: string; type: string }): boolean {
  return !event.type.startsWith('$') && STREAM_PREFIXES.some((prefix) => event.streamId.startsWith(prefix));
}

/** ulong.MaxValue: what servers before 22.6 send as the commit position of an event read from a stream. */
const NO_POSITION = 2n ** 64n - 1n;

/** Thrown when the server does not tell an event's place in `$all` (servers before 22.6, on stream reads). */
export class UnsupportedServerError extends Error {
  constructor() {
    super('EventStoreDB before 22.6 gives no $all position to events read from a stream; run 22.6 or later (infra/ runs 24.10)');
    this.name = 'UnsupportedServerError';
  }
}

/**
 * The event's `$all` commit position. The client always fills `event.position` (with "0" defaults when the
 * server sends nothing), so it is taken only when it is a real position; the read's own commit position is the
 * fallback, and a server that gives neither is refused.
 */
export function commitPositionOf(resolved: ResolvedEvent): number {
  for (const commit of [resolved.event?.position?.commit, resolved.commitPosition]) {
    if (commit !== undefined && commit > 0n && commit !== NO_POSITION) return Number(commit);
  }
  throw new UnsupportedServerError();
}
