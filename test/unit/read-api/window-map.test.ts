/**
 * The store of koa-ratelimit's memory driver (read-api/rate-limit/window-map.ts): windows that ended are forgotten,
 * so the addresses of clients gone quiet do not stay in memory; windows still running are kept. On a fake wall
 * clock (node:test's mock timers, `Date` only), so no test waits and none depends on how late a timer fires.
 */
import { mock } from 'node:test';
import { expect } from 'chai';
import { WindowMap } from '../../../read-api/rate-limit/window-map.ts';

describe('rate-limit window map', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 }));
  afterEach(() => mock.timers.reset());

  it('forgets a window once it has ended, when a later window starts', () => {
    const windows = new WindowMap(30);
    windows.set('rl:general:198.51.100.1', { remaining: 3 });
    mock.timers.tick(30);
    windows.set('rl:general:198.51.100.2', { remaining: 3 });
    expect([...windows.keys()]).to.deep.equal(['rl:general:198.51.100.2']);
  });

  it('keeps a window until its last millisecond', () => {
    const windows = new WindowMap(30);
    windows.set('a', 1);
    mock.timers.tick(29);
    windows.set('b', 1);
    expect([...windows.keys()]).to.deep.equal(['a', 'b']);
  });

  it('keeps windows still running, and a window started again runs from its new start', () => {
    const windows = new WindowMap(1_000);
    windows.set('a', 1);
    windows.set('b', 1);
    mock.timers.tick(600);
    windows.set('a', 2);
    mock.timers.tick(400);
    // b's window (0-1000 ms) ended; a's started again at 600 ms and runs to 1600 ms.
    windows.set('c', 1);
    expect([...windows.keys()].sort()).to.deep.equal(['a', 'c']);
    expect(windows.get('a')).to.equal(2);
  });

  it('looks for ended windows at most once per window, and then forgets every one of them', () => {
    const windows = new WindowMap(1_000);
    windows.set('a', 1);
    mock.timers.tick(500);
    windows.set('b', 1);
    mock.timers.tick(600);
    // a ended at 1000 ms, but the last look was at 0 ms and the next is due at 1000 ms: this set looks, a goes.
    windows.set('c', 1);
    expect([...windows.keys()].sort()).to.deep.equal(['b', 'c']);
    mock.timers.tick(500);
    // b ended at 1500 ms, but the last look was at 1100 ms: no look before 2100 ms, b stays for now.
    windows.set('d', 1);
    expect([...windows.keys()].sort()).to.deep.equal(['b', 'c', 'd']);
    mock.timers.tick(500);
    // At 2100 ms: b (ended 1500 ms) and c (ended 2100 ms) go, d (ends 2600 ms) stays.
    windows.set('e', 1);
    expect([...windows.keys()].sort()).to.deep.equal(['d', 'e']);
  });
});
