/**
 * The freshness tickets an API replica took itself (ports/freshness-tickets.ts), each with when it asked for it on its
 * own monotonic clock: a confirmation naming ticket T read its head after this process asked for each of its tickets
 * up to T, so its data is no older than the latest of those moments. Taken every `everyMs`; those older than `keepMs`
 * are let go (a confirmation older than them is judged not seen, as one a start did not see happen). While none could
 * be taken for `currentForMs` (the counter away: Redis down), none is vouched for, and confirmations are judged by their
 * owner's `age_ms` alone, as without tickets: answers are not all judged stale for as long as Redis is away.
 */
import type { FreshnessTicket, FreshnessTickets } from '../../ports/freshness-tickets.ts';

export interface OwnTickets {
  /**
   * When the data of a confirmation naming `ticket` counts from, given `seenAt`, when `age_ms` says (read-model-clock.ts):
   * from when this process asked for its latest ticket up to `ticket`, when that is older (the write landed late:
   * stalled in the store or the network); null (not seen) when it holds none of that counter up to it. A confirmation
   * naming no ticket (an owner without tickets, or whose counter is away, or of an earlier release), or a ticket it
   * cannot place (another counter's, as `npm start`'s processes sharing a store without Redis; or its own counter
   * away), keeps `seenAt`, as before tickets.
   */
  bound(seenAt: number, ticket: FreshnessTicket | undefined): number | null;
  /** Whether a ticket was taken within `currentForMs`: confirmations are then bounded by their tickets. */
  current(): boolean;
  stop(): void;
}

export function takeOwnTickets(tickets: FreshnessTickets, options: {
  everyMs: number; keepMs: number; currentForMs: number; monotonic: () => number;
  /** Told once when no ticket could be taken for `currentForMs` (false), and once when one is again (true). */
  onCurrent?: (current: boolean) => void;
}): OwnTickets {
  const { everyMs, keepMs, currentForMs, monotonic, onCurrent } = options;
  /** Oldest first; within one epoch, numbers rise with the time asked. */
  let taken: { ticket: FreshnessTicket; askedAt: number }[] = [];
  let taking = false;
  /**
   * When the latest ticket taken was asked for; at first, when this began, so that the counter is told away only once
   * none could be taken for `currentForMs` (a connection not ready yet at a start is no outage). Nothing is vouched for
   * meanwhile: no ticket is held.
   */
  let lastAskedAt = monotonic();
  const current = () => monotonic() - lastAskedAt <= currentForMs;
  /** Whether the last word told was that tickets are away. */
  let toldAway = false;
  const take = async () => {
    if (taking) return;
    taking = true;
    const askedAt = monotonic();
    try {
      const ticket = await tickets.take();
      taken.push({ ticket, askedAt });
      lastAskedAt = askedAt;
      const oldest = monotonic() - keepMs;
      if (taken[0]!.askedAt < oldest) taken = taken.filter((entry) => entry.askedAt >= oldest);
      if (toldAway) {
        toldAway = false;
        onCurrent?.(true);
      }
    } catch {
      // Told once the counter is away, not at each failure (a connection not ready, a command timed out).
      if (!toldAway && !current()) {
        toldAway = true;
        onCurrent?.(false);
      }
    } finally {
      taking = false;
    }
  };
  void take();
  const timer = setInterval(() => void take(), everyMs);
  timer.unref();
  return {
    bound(seenAt, ticket) {
      if (ticket === undefined || !current()) return seenAt;
      let epochKnown = false;
      for (let i = taken.length - 1; i >= 0; i -= 1) {
        const entry = taken[i]!;
        if (entry.ticket.epoch !== ticket.epoch) continue;
        if (entry.ticket.n <= ticket.n) return Math.min(seenAt, entry.askedAt);
        epochKnown = true;
      }
      return epochKnown ? null : seenAt;
    },
    current,
    stop: () => clearInterval(timer),
  };
}
