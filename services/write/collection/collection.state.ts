/** State of a collection: whether it is defined, and its current description. */
import { assertNever, type CollectionDefined, type EventOf } from '../../../shared/events/index.ts';

export type CollectionEvent = EventOf<'CollectionDefined'> | EventOf<'CollectionRevised'>;

export type CollectionState = { defined: false } | { defined: true; collection: CollectionDefined };

export function initialCollectionState(): CollectionState {
  return { defined: false };
}

export function evolveCollection(state: CollectionState, event: CollectionEvent): CollectionState {
  switch (event.type) {
    case 'CollectionDefined':
      return { defined: true, collection: event.data };
    case 'CollectionRevised': {
      if (!state.defined) return state;
      const { code: _code, ...changes } = event.data;
      return { defined: true, collection: { ...state.collection, ...stripUndefined(changes) } };
    }
    default:
      return assertNever(event);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
