/**
 * The shape of every aggregate: pure `decide` and `evolve` over a state that starts at `initialState()`.
 * Time and ids never enter here; the handler stamps them on the events it appends.
 */
import type { DomainEvent } from '../../../shared/events/index.ts';
import type { DomainError } from './domain-error.ts';

/** What `decide` returns: the new events (none when the command changes nothing), or why it was refused. */
export type Decision<E extends DomainEvent> = E[] | DomainError;

export interface Decider<C, S, E extends DomainEvent, Ctx = undefined> {
  initialState(): S;
  evolve(state: S, event: E): S;
  /** `context` holds other aggregates' state the handler loaded, e.g. the collection of a watch. */
  decide(command: C, state: S, context: Ctx): Decision<E>;
}
