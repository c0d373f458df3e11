/** State of a serial in the registry: not registered, registered (authentic), or reported stolen. */
import { assertNever, type EventOf } from '../../../shared/events/index.ts';

export type SerialEvent = EventOf<'SerialRegistered'> | EventOf<'SerialReportedStolen'> | EventOf<'SerialRecovered'>;

export type SerialState =
  | { status: 'unregistered' }
  | { status: 'registered' | 'stolen'; reference: string; manufacture_year: number };

export function initialSerialState(): SerialState {
  return { status: 'unregistered' };
}

export function evolveSerial(state: SerialState, event: SerialEvent): SerialState {
  switch (event.type) {
    case 'SerialRegistered':
      return { status: 'registered', reference: event.data.reference, manufacture_year: event.data.manufacture_year };
    case 'SerialReportedStolen':
      return state.status === 'unregistered' ? state : { ...state, status: 'stolen' };
    case 'SerialRecovered':
      return state.status === 'unregistered' ? state : { ...state, status: 'registered' };
    default:
      return assertNever(event);
  }
}
