/** What the generic handler needs to run commands of one aggregate: its decider, its stream, its context. */
import type { DomainEvent } from '../../../shared/events/index.ts';
import type { Decider } from '../domain/decider.ts';
import type { StateLoader } from './load-state.ts';

export interface Aggregate<C, S, E extends DomainEvent, Ctx> {
  decider: Decider<C, S, E, Ctx>;
  /** The stream the command is about, e.g. `watch-AUR-SP-001`. */
  streamOf(command: C): string;
  /** Loads the other aggregates' state `decide` needs, through `states` (from the event store, never read models). */
  loadContext(command: C, states: StateLoader): Promise<Ctx>;
}
