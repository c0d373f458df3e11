/** Wiring of the configurator aggregate into the generic handler: every command loads the collection. */
import { streams } from '../../../shared/ports/event-store.ts';
import { collectionDecider } from '../collection/collection.decide.ts';
import type { Aggregate } from '../handler/aggregate.ts';
import { configuratorOf, type ConfiguratorCommand } from './configurator.commands.ts';
import { configuratorDecider, type ConfiguratorContext } from './configurator.decide.ts';
import type { ConfiguratorEvent, ConfiguratorState } from './configurator.state.ts';

export const configuratorAggregate: Aggregate<ConfiguratorCommand, ConfiguratorState, ConfiguratorEvent, ConfiguratorContext> = {
  decider: configuratorDecider,
  streamOf: (command) => streams.configurator(configuratorOf(command)),
  loadContext: async (command, states) => {
    const { state } = await states.load(collectionDecider, streams.collection(configuratorOf(command)));
    return { collection: state };
  },
};
