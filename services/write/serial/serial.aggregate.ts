/** Wiring of the serial aggregate into the generic handler: a registration loads the watch. */
import { streams } from '../../../shared/ports/event-store.ts';
import type { Aggregate } from '../handler/aggregate.ts';
import { watchDecider } from '../watch/watch.decide.ts';
import type { SerialCommand } from './serial.commands.ts';
import { serialDecider, type SerialContext } from './serial.decide.ts';
import type { SerialEvent, SerialState } from './serial.state.ts';

export const serialAggregate: Aggregate<SerialCommand, SerialState, SerialEvent, SerialContext> = {
  decider: serialDecider,
  streamOf: (command) => streams.serial(command.serial),
  loadContext: async (command, states) => {
    if (command.type !== 'RegisterSerial') return {};
    const { state } = await states.load(watchDecider, streams.watch(command.reference));
    return { watch: state };
  },
};
