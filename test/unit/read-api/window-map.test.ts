/**
 * The store of koa-ratelimit's memory driver (read-api/rate-limit/window-map.ts): windows that ended are forgotten,
 * so the addresses of clients gone quiet do not stay in memory; windows still running are kept.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { WindowMap } from '../../../read-api/rate-limit/window-map.ts';

describe('rate-limit window map', () => {
  it('forgets a window once it has ended, when a later window starts', async () => {
    const windows = new WindowMap(30);
    windows.set('rl:general:198.51.100.1', { remaining: 3 });
    await sleep(40);
    windows.set('rl:general:198.51.100.2', { remaining: 3 });
    expect([...windows.keys()]).to.deep.equal(['rl:general:198.51.100.2']);
  });

  it('keeps windows still running, and a window started again runs from its new start', async () => {
    const windows = new WindowMap(1_000);
    windows.set('a', 1);
    windows.set('b', 1);
    await sleep(600);
    windows.set('a', 2);
    await sleep(600);
    // b's window (0-1000 ms) ended; a's started again at 600 ms and runs to 1600 ms (a timer late by 400 ms is
    // what this test tolerates).
    windows.set('c', 1);
    expect([...windows.keys()].sort()).to.deep.equal(['a', 'c']);
    expect(windows.get('a')).to.equal(2);
  });
});
