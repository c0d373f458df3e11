/** What the generic handler needs to run commands of one aggregate: its decider, its stream, its context. */
import type { DomainEvent } from '../../shared/events/index.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { Decider } from '../domain/decider.ts';

export interface Aggregate<C, S, E extends DomainEvent, Ctx> {
  decider: Decider<C, S, E, Ctx>;
  /** The stream the command is about, e.g. `watch-AUR-SP-001`. */
  streamOf(command: C): string;
  /** Loads the other aggregates' state `decide` needs, from the event store (never from read models). */
  loadContext(command: C, store: EventStore): Promise<Ctx>;
}
