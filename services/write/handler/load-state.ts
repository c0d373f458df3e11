/** Folding one stream into its aggregate's state, and the port through which handlers and aggregates load states. */
import type { DomainEvent } from '../../../shared/events/index.ts';
import { isUnreadable, type ExactRevision, type StoredEvent } from '../../../shared/ports/event-store.ts';
import type { Decider } from '../domain/decider.ts';
import { conflict } from '../domain/domain-error.ts';

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

/**
 * `start` moved on by the stream's events that follow it (all of them, in revision order). A stream holding an event
 * this version cannot read (a newer writer's) is refused as a conflict: a decision on a state that leaves out part of
 * its history could contradict it, so the command waits for an instance of the version that wrote it.
 */
export function foldOnto<S, E extends DomainEvent>(decider: Folding<S, E>, start: LoadedState<S>, events: readonly StoredEvent[]): LoadedState<S> {
  const last = events.at(-1);
  if (!last) return start;
  const state = events.reduce((current, event) => {
    if (isUnreadable(event)) {
      throw conflict(`${event.stream} holds an event this version cannot read (${event.type} at revision ${event.revision}: `
        + `${event.unreadable}); run this command with the version that wrote it`);
    }
    // The stream holds only this aggregate's events (the stream name says which aggregate), hence the cast.
    return decider.evolve(current, event as unknown as E);
  }, start.state);
  return { state, expected: last.revision };
}
