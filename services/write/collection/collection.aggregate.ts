/** Wiring of the collection aggregate into the generic handler. */
import { streams } from '../../../shared/ports/event-store.ts';
import type { Aggregate } from '../handler/aggregate.ts';
import type { CollectionCommand } from './collection.commands.ts';
import { collectionDecider } from './collection.decide.ts';
import type { CollectionEvent, CollectionState } from './collection.state.ts';

export const collectionAggregate: Aggregate<CollectionCommand, CollectionState, CollectionEvent, undefined> = {
  decider: collectionDecider,
  streamOf: (command) => streams.collection(command.type === 'DefineCollection' ? command.collection.code : command.revision.code),
  loadContext: async () => undefined,
};
