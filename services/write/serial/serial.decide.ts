/**
 * Rules of the serial registry: a serial is registered once, only for a published (not withdrawn) watch, with a
 * manufacture year that has begun; only a registered serial can be reported stolen, and only a stolen one recovered.
 */
import { assertNever } from '../../../shared/events/index.ts';
import type { Decider, Decision } from '../domain/decider.ts';
import { conflict, invalid, unknown } from '../domain/domain-error.ts';
import { FIRST_MANUFACTURE_YEAR, manufactureYearBreach } from '../domain/years.ts';
import type { WatchState } from '../watch/watch.state.ts';
import type { SerialCommand } from './serial.commands.ts';
import { evolveSerial, initialSerialState, type SerialEvent, type SerialState } from './serial.state.ts';

/** The watch a serial is registered for: loaded for a registration only. */
export type SerialContext = { watch?: WatchState };

function decideSerial(command: SerialCommand, state: SerialState, context: SerialContext): Decision<SerialEvent> {
  const { serial } = command;
  switch (command.type) {
    case 'RegisterSerial': {
      if (state.status !== 'unregistered') return conflict(`serial ${serial} is already registered`);
      const { reference, manufacture_year, current_year } = command;
      const watch = context.watch;
      if (!watch || watch.status === 'unpublished') return unknown('watch', reference);
      if (watch.status === 'withdrawn') return conflict(`watch ${reference} is withdrawn: no serial can be registered for it`);
      const breach = manufactureYearBreach(manufacture_year, current_year);
      if (breach === 'not_a_year') {
        return invalid(`manufacture year must be a whole year from ${FIRST_MANUFACTURE_YEAR}, got ${manufacture_year}`);
      }
      if (breach === 'future') {
        return invalid(`manufacture year ${manufacture_year} is in the future: by the service's clock at registration the latest year begun anywhere is ${current_year}`);
      }
      return [{
        type: 'SerialRegistered',
        data: { serial, reference, collection: watch.watch.collection, model: watch.watch.name, manufacture_year },
      }];
    }
    case 'ReportSerialStolen':
      if (state.status === 'unregistered') return unknown('serial', serial);
      if (state.status === 'stolen') return conflict(`serial ${serial} is already reported stolen`);
      return [{ type: 'SerialReportedStolen', data: { serial } }];
    case 'RecoverSerial':
      if (state.status === 'unregistered') return unknown('serial', serial);
      if (state.status !== 'stolen') return conflict(`serial ${serial} is not reported stolen`);
      return [{ type: 'SerialRecovered', data: { serial } }];
    default:
      return assertNever(command);
  }
}

export const serialDecider: Decider<SerialCommand, SerialState, SerialEvent, SerialContext> = {
  initialState: initialSerialState,
  evolve: evolveSerial,
  decide: decideSerial,
};
