import { expect } from 'chai';
import { eurosToCents } from '../../../shared/money/cents.ts';

// The rule a third decimal breaks, wherever euros come in (services/admin/document-issues.ts reads it for the admin
// API and the watch file); its message names the amount (mutation survivor, issue 31).
describe('eurosToCents', () => {
  it('turns euros with two decimals into cents, and refuses a third decimal naming the amount', () => {
    expect(eurosToCents(12.34)).to.equal(1234);
    expect(() => eurosToCents(12.345)).to.throw(RangeError, /12\.345/);
  });
});
