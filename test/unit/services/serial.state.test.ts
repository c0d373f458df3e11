/**
 * The state a serial's history folds into (services/write/serial/serial.state.ts), written out by hand: what the decider
 * reads before registering a serial again, reporting it stolen or recovering it.
 */
import { expect } from 'chai';
import { evolveSerial, initialSerialState, type SerialEvent, type SerialState } from '../../../services/write/serial/serial.state.ts';

const serial = 'AUR-2024-000001';
const registered: SerialEvent = {
  type: 'SerialRegistered', data: { serial, reference: 'AUR-LU-001', collection: 'lumiere', model: { en: 'Lumière', fr: 'Lumière' }, manufacture_year: 2024 },
};
const stolen: SerialEvent = { type: 'SerialReportedStolen', data: { serial } };
const recovered: SerialEvent = { type: 'SerialRecovered', data: { serial } };
const fold = (events: SerialEvent[]): SerialState => events.reduce(evolveSerial, initialSerialState());

describe('serial state', () => {
  it('is unregistered before any event', () => {
    expect(fold([])).to.deep.equal({ status: 'unregistered' });
  });

  it('is registered with its reference and year, stolen once reported, registered again once recovered', () => {
    const known = { reference: 'AUR-LU-001', manufacture_year: 2024 };
    expect(fold([registered])).to.deep.equal({ status: 'registered', ...known });
    expect(fold([registered, stolen])).to.deep.equal({ status: 'stolen', ...known });
    expect(fold([registered, stolen, recovered])).to.deep.equal({ status: 'registered', ...known });
    expect(fold([registered, stolen, recovered, stolen])).to.deep.equal({ status: 'stolen', ...known });
  });

  it('stays unregistered through a theft or a recovery of a serial never registered', () => {
    expect(fold([stolen])).to.deep.equal({ status: 'unregistered' });
    expect(fold([recovered])).to.deep.equal({ status: 'unregistered' });
  });
});
