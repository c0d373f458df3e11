import { expect } from 'chai';
import { authThrottle } from '../../../services/admin/auth-throttle.ts';

describe('admin authentication throttle', () => {
  it('lets a client fail its allowance, then holds it until its one-minute window ends', () => {
    const throttle = authThrottle(2);
    const start = 1_000_000;
    expect(throttle.retryAfter('a', start)).to.equal(0);
    throttle.failed('a', start);
    throttle.failed('a', start + 1_000);
    expect(throttle.retryAfter('a', start + 1_000)).to.equal(59);
    expect(throttle.retryAfter('a', start + 59_500)).to.equal(1);
    expect(throttle.retryAfter('b', start + 1_000), 'another client').to.equal(0);
    expect(throttle.retryAfter('a', start + 60_000), 'a new window').to.equal(0);
    throttle.failed('a', start + 60_000);
    expect(throttle.retryAfter('a', start + 60_000)).to.equal(0);
  });

  it('remembers at most maxClients, dropping the oldest, so a flood of addresses cannot grow it', () => {
    const throttle = authThrottle(1, 3);
    for (const client of ['a', 'b', 'c', 'd']) throttle.failed(client, 0);
    expect(['a', 'b', 'c', 'd'].map((client) => throttle.retryAfter(client, 1))).to.deep.equal([0, 60, 60, 60]);
  });
});
