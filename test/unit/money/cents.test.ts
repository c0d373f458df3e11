import { expect } from 'chai';
import { eurosToCents } from '../../../shared/money/cents.ts';

// The admin API answers this RangeError's message as its 422 (services/admin/admin-routes.ts, `euros`), so an
// operator who typed a third decimal is told which amount (mutation survivor, issue 31).
describe('eurosToCents', () => {
  it('turns euros with two decimals into cents, and refuses a third decimal naming the amount', () => {
    expect(eurosToCents(12.34)).to.equal(1234);
    expect(() => eurosToCents(12.345)).to.throw(RangeError, /12\.345/);
  });
});
