import { expect } from 'chai';
import { latestYearBegun } from '../../../services/write/domain/years.ts';
import { serialDecider } from '../../../services/write/serial/serial.decide.ts';
import type { WatchState } from '../../../services/write/watch/watch.state.ts';
import { aWatch, event } from './support/builders.ts';
import { deciderSpec } from './support/decider-spec.ts';

const spec = deciderSpec(serialDecider);
const serial = 'AUR-2024-000001';
const published: WatchState = { status: 'published', watch: aWatch() };
const register = { type: 'RegisterSerial', serial, reference: 'AUR-LU-001', manufacture_year: 2024, current_year: 2026 } as const;
const registered = event('SerialRegistered', {
  serial, reference: 'AUR-LU-001', collection: 'lumiere', model: aWatch().name, manufacture_year: 2024,
});
const stolen = event('SerialReportedStolen', { serial });

describe('serial decider', () => {
  describe('registration', () => {
    it('registers a serial of a published watch, with the watch collection and model name', () => {
      spec.given([], { watch: published }).when(register).then([registered]);
    });

    it('refuses a serial already registered', () => {
      spec.given([registered], { watch: published }).when(register)
        .thenRefuses('conflict', `serial ${serial} is already registered`);
    });

    // The projection writes `authentic` for every registration: this refusal alone keeps a stolen watch STOLEN.
    it('refuses to register again a serial reported stolen, and one stolen then recovered', () => {
      spec.given([registered, stolen], { watch: published }).when(register)
        .thenRefuses('conflict', `serial ${serial} is already registered`);
      spec.given([registered, stolen, event('SerialRecovered', { serial })], { watch: published }).when(register)
        .thenRefuses('conflict', `serial ${serial} is already registered`);
    });

    it('refuses a serial of an unknown watch', () => {
      spec.given([], { watch: { status: 'unpublished' } }).when(register).thenRefuses('not_found', 'unknown watch AUR-LU-001');
    });

    it('refuses a serial of a withdrawn watch', () => {
      spec.given([], { watch: { ...published, status: 'withdrawn' } }).when(register)
        .thenRefuses('conflict', 'watch AUR-LU-001 is withdrawn: no serial can be registered for it');
    });

    it('refuses a manufacture year out of range', () => {
      spec.given([], { watch: published }).when({ ...register, manufacture_year: 1700 })
        .thenRefuses('invalid', /manufacture year must be a whole year from 1800, got 1700/);
    });

    it('takes both ends of the manufacture years, 1800 and the current year, and refuses the years just beyond them', () => {
      for (const year of [1800, 2026]) {
        spec.given([], { watch: published }).when({ ...register, manufacture_year: year })
          .then([event('SerialRegistered', { ...registered.data, manufacture_year: year })]);
      }
      spec.given([], { watch: published }).when({ ...register, manufacture_year: 1799 }).thenRefuses('invalid', /got 1799$/);
      // The year is the command's, read from the service's clock when it was sent: the decider reads no clock.
      spec.given([], { watch: published }).when({ ...register, manufacture_year: 2027 }).thenRefuses(
        'invalid', "manufacture year 2027 is in the future: by the service's clock at registration the latest year begun anywhere is 2026",
      );
    });
  });

  describe('theft', () => {
    it('reports a registered serial stolen', () => {
      spec.given([registered], {}).when({ type: 'ReportSerialStolen', serial }).then([stolen]);
    });

    it('refuses to report an unknown serial stolen', () => {
      spec.given([], {}).when({ type: 'ReportSerialStolen', serial }).thenRefuses('not_found', `unknown serial ${serial}`);
    });

    it('refuses to report a serial stolen twice', () => {
      spec.given([registered, stolen], {}).when({ type: 'ReportSerialStolen', serial })
        .thenRefuses('conflict', `serial ${serial} is already reported stolen`);
    });

    it('recovers a stolen serial', () => {
      spec.given([registered, stolen], {}).when({ type: 'RecoverSerial', serial }).then([event('SerialRecovered', { serial })]);
    });

    it('refuses to recover a serial that is not reported stolen', () => {
      spec.given([registered], {}).when({ type: 'RecoverSerial', serial }).thenRefuses('conflict', `serial ${serial} is not reported stolen`);
    });

    it('refuses to recover an unknown serial', () => {
      spec.given([], {}).when({ type: 'RecoverSerial', serial }).thenRefuses('not_found', `unknown serial ${serial}`);
    });

    it('lets a recovered serial be reported stolen again', () => {
      spec.given([registered, stolen, event('SerialRecovered', { serial })], {}).when({ type: 'ReportSerialStolen', serial }).then([stolen]);
    });
  });

  describe('the current year a registration is judged by', () => {
    it('is the latest year begun anywhere: a new year counts from midnight at UTC+14, 10:00 UTC the day before', () => {
      expect(latestYearBegun(new Date('2026-12-31T09:59:59Z'))).to.equal(2026);
      expect(latestYearBegun(new Date('2026-12-31T10:00:00Z'))).to.equal(2027);
      expect(latestYearBegun(new Date('2026-01-01T00:00:00Z'))).to.equal(2026);
    });
  });
});
