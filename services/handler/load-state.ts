/** Reads one stream and folds it into its aggregate's state; also the revision an append must expect. */
import type { DomainEvent } from '../../shared/events/index.ts';
import type { EventStore, ExpectedRevision } from '../../shared/ports/event-store.ts';
import type { Decider } from '../domain/decider.ts';

export interface LoadedState<S> {
  state: S;
  /** `no_stream` when the stream has no event yet, else the revision of its last event. */
  expected: ExpectedRevision;
}

type Folding<S, E extends DomainEvent> = Pick<Decider<never, S, E, never>, 'initialState' | 'evolve'>;

export async function loadState<S, E extends DomainEvent>(store: EventStore, decider: Folding<S, E>, stream: string): Promise<LoadedState<S>> {
  const events = await store.readStream(stream);
  // The stream holds only this aggregate's events (the stream name says which aggregate), hence the cast.
  const state = events.reduce((current, event) => decider.evolve(current, event as unknown as E), decider.initialState());
  return { state, expected: events.length === 0 ? 'no_stream' : events.length - 1 };
}
