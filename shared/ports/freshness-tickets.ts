/**
 * One counter shared by the processes of a deployment, which orders an API replica's moments before a projector's
 * reads of the event store's head without comparing their clocks (docs/api.md, "Honest answers"). A replica takes a
 * ticket every so often, noting on its own monotonic clock when it asked; a projector notes in each confirmation the
 * latest ticket it had read before it read the head. A confirmation naming ticket T was read after every ticket up to
 * T was taken, so its data is no older than when its replica asked for its last ticket up to T: however long the
 * confirmation's write took to land (a write stalled in the store or the network), which the owner's own measure of
 * the head's age (`age_ms`, taken before the write) cannot count.
 *
 * A counter that starts again (a Redis restarted empty) comes with a new epoch: tickets of two epochs are never
 * compared.
 */
export interface FreshnessTicket {
  /** The counter's life: a random name given when it starts. */
  epoch: string;
  n: number;
}

export interface FreshnessTickets {
  /** A new ticket, above every ticket of its epoch read before this call began. Rejects when the counter is away. */
  take(): Promise<FreshnessTicket>;
  /** The latest ticket taken, as read after this call began; undefined before any. Rejects when the counter is away. */
  latest(): Promise<FreshnessTicket | undefined>;
  close(): Promise<void>;
}
