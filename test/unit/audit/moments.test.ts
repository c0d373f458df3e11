/**
 * The moments the audit commands take (`history --since/--until`, `state-at`, `price-at`; services/audit/moments.ts):
 * ISO 8601 with an offset, or a date alone at UTC midnight. A time without an offset would depend on the auditor's
 * time zone, and a day that does not exist would roll over into another: both are usage errors.
 */
import { expect } from 'chai';
import { InvalidArgumentError } from 'commander';
import { parseMoment } from '../../../services/audit/moments.ts';

describe('moments typed on the command line', () => {
  it('reads a timestamp with Z or an offset, with or without seconds and fractions, and a date alone as UTC midnight', () => {
    const cases: [string, string][] = [
      ['2025-03-01T12:00:00Z', '2025-03-01T12:00:00.000Z'],
      ['2025-03-01T12:00:00+01:00', '2025-03-01T11:00:00.000Z'],
      ['2025-03-01T12:00:00.123-02:30', '2025-03-01T14:30:00.123Z'],
      ['2025-03-01T12:00Z', '2025-03-01T12:00:00.000Z'],
      ['2025-03-01', '2025-03-01T00:00:00.000Z'],
      [' 2024-02-29T23:59:59Z\n', '2024-02-29T23:59:59.000Z'],
    ];
    for (const [typed, moment] of cases) expect(new Date(parseMoment(typed)).toISOString(), typed).to.equal(moment);
  });

  it('refuses a time without an offset, a day or a time that does not exist, and other spellings of a date', () => {
    for (const typed of ['2026-12-02T14:31:15', '2025-02-30T00:00:00Z', '2025-02-29', '2025-13-01', '2025-03-01T24:00:00Z', '2025-03-01T12:60:00Z',
      '12/02/2026', 'Dec 2 2026', '2025-03-01 12:00:00Z', 'last tuesday', '']) {
      expect(() => parseMoment(typed), JSON.stringify(typed)).to.throw(InvalidArgumentError, 'expected an ISO 8601 timestamp');
    }
  });
});
