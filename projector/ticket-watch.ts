/**
 * The latest freshness ticket this projector process has read (ports/freshness-tickets.ts), read again every
 * `everyMs` in the background: a confirmation names the one read before its head was, with no round trip on the way
 * of a batch. A ticket not read again for `currentForMs` (the counter away: Redis down) is given no more, so the
 * confirmations name none and are judged by their `age_ms` alone, as without tickets: the replicas are not left to
 * judge every answer stale for as long as Redis is away.
 */
import type { Logger } from '../shared/logging/logger.ts';
import type { FreshnessTicket, FreshnessTickets } from '../shared/ports/freshness-tickets.ts';
import { SYSTEM_CLOCK, type LeaseClock } from '../shared/read-model/projections/lease.ts';

/** How often a projector reads the latest ticket: what it adds, at most, to the age its confirmations are judged by. */
const TICKET_READ_EVERY_MS = 50;
/** How long a ticket read is given after its read: ten reads missed. */
const TICKET_CURRENT_FOR_MS = 10 * TICKET_READ_EVERY_MS;

export interface TicketWatch {
  /** The latest ticket, read before this call and within `currentForMs` of it; undefined otherwise. */
  known(): FreshnessTicket | undefined;
  stop(): void;
}

export async function watchTickets(tickets: FreshnessTickets, options: {
  everyMs: number; currentForMs: number; monotonic: () => number; onError: (error: unknown) => void;
}): Promise<TicketWatch> {
  const { everyMs, currentForMs, monotonic, onError } = options;
  let known: { ticket: FreshnessTicket; readAt: number } | undefined;
  let reading = false;
  const read = async () => {
    if (reading) return;
    reading = true;
    // When the read was sent: the ticket it answers is at least as recent as that.
    const sentAt = monotonic();
    try {
      const ticket = await tickets.latest();
      if (ticket) known = { ticket, readAt: sentAt };
    } catch (error) {
      onError(error);
    } finally {
      reading = false;
    }
  };
  await read();
  const timer = setInterval(() => void read(), everyMs);
  timer.unref();
  return {
    known: () => (known !== undefined && monotonic() - known.readAt <= currentForMs ? known.ticket : undefined),
    stop: () => clearInterval(timer),
  };
}

/**
 * A projector process's clock naming the latest ticket it read (`LeaseClock.ticket`, given to `createProjector`), with
 * what its metrics ask and what ends the reads: read every `TICKET_READ_EVERY_MS`, given for `TICKET_CURRENT_FOR_MS`.
 */
export async function ticketedClock(tickets: FreshnessTickets, logger: Logger): Promise<{ clock: LeaseClock; current(): boolean; stop(): void }> {
  const watch = await watchTickets(tickets, {
    everyMs: TICKET_READ_EVERY_MS, currentForMs: TICKET_CURRENT_FOR_MS, monotonic: SYSTEM_CLOCK.monotonic,
    onError: (error) => logger.debug({ err: error }, 'freshness ticket not read'),
  });
  return { clock: { ...SYSTEM_CLOCK, ticket: watch.known }, current: () => watch.known() !== undefined, stop: watch.stop };
}
