/** Wiring of the watch aggregate into the generic handler: a publication loads the watch's collection. */
import { streams } from '../../../shared/ports/event-store.ts';
import { collectionDecider } from '../collection/collection.decide.ts';
import type { Aggregate } from '../handler/aggregate.ts';
import type { WatchCommand } from './watch.commands.ts';
import { watchDecider, type WatchContext } from './watch.decide.ts';
import type { WatchEvent, WatchState } from './watch.state.ts';

function referenceOf(command: WatchCommand): string {
  switch (command.type) {
    case 'PublishWatch': return command.watch.reference;
    case 'ReviseWatch': return command.revision.reference;
    default: return command.reference;
  }
}

export const watchAggregate: Aggregate<WatchCommand, WatchState, WatchEvent, WatchContext> = {
  decider: watchDecider,
  streamOf: (command) => streams.watch(referenceOf(command)),
  loadContext: async (command, states) => {
    if (command.type !== 'PublishWatch') return {};
    const { state } = await states.load(collectionDecider, streams.collection(command.watch.collection));
    return { collection: state };
  },
};
