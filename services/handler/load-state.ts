/** Folding one stream into its aggregate's state, and the port through which handlers and aggregates load states. */
import type { DomainEvent } from '../../shared/events/index.ts';
import type { ExactRevision, RecordedEvent } from '../../shared/ports/event-store.ts';
import type { Decider } from '../domain/decider.ts';

export interface LoadedState<S> {
  state: S;
  /**
   * `no_stream` when the stream has no event yet, else the revision of its last event: always exact, since only
   * an exact expectation makes an append safe to repeat on every engine (see `EventStore.append`).
   */
  expected: ExactRevision;
}

export type Folding<S, E extends DomainEvent> = Pick<Decider<never, S, E, never>, 'initialState' | 'evolve'>;

/**
 * Loads aggregate states from the event store (never from read models). A state answered is the fold of the
 * stream as stored at the moment of the load, exactly as a full read then would give it. States may be shared
 * between loads: `evolve` and `decide` build new states and never change the ones they are given.
 */
export interface StateLoader {
  load<S, E extends DomainEvent>(decider: Folding<S, E>, stream: string): Promise<LoadedState<S>>;
}

/** `start` moved on by the stream's events that follow it (all of them, in revision order). */
export function foldOnto<S, E extends DomainEvent>(decider: Folding<S, E>, start: LoadedState<S>, events: readonly RecordedEvent[]): LoadedState<S> {
  const last = events.at(-1);
  if (!last) return start;
  // The stream holds only this aggregate's events (the stream name says which aggregate), hence the cast.
  const state = events.reduce((current, event) => decider.evolve(current, event as unknown as E), start.state);
  return { state, expected: last.revision };
}
