/**
 * The answer cache's store (read-api/cache/response-cache.ts): an entry is served only while the projections it
 * was read from stand where its stamp says (once they move it is dropped), and the store is bounded, least recently
 * used entries leaving first (2000 by default), so arbitrary query strings cannot grow memory.
 */
import { expect } from 'chai';
import type { ReadStamp } from '../../../shared/read-model/public-api/read-model-clock.ts';
import { ResponseCache, type Stamped } from '../../../read-api/cache/response-cache.ts';

interface Entry extends Stamped {
  url: string;
}

/** Projections standing at `key`, moved by `move`. */
function projections(key: string) {
  let now: ReadStamp = { key, position: 1, behindAt: null };
  return { view: () => now, move: (to: string) => { now = { key: to, position: 2, behindAt: null }; } };
}

describe('response cache', () => {
  const still = projections('catalogue@1:7');
  const entry = (url: string): Entry => ({ url, stamp: still.view(), view: still.view });
  const urls = (cache: ResponseCache<Entry>, candidates: string[]) => candidates.filter((url) => cache.get(url) !== undefined);

  it('serves an entry while its projections stand where its stamp says, and drops it once they move', () => {
    const moving = projections('catalogue@1:7');
    const cache = new ResponseCache<Entry>(10);
    cache.set('/a', { url: '/a', stamp: moving.view(), view: moving.view });
    expect(cache.get('/a')?.url).to.equal('/a');
    moving.move('catalogue@1:8');
    expect(cache.get('/a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('keeps at most maxEntries, the least recently set leaving first', () => {
    const cache = new ResponseCache<Entry>(2);
    for (const url of ['/a', '/b', '/c']) cache.set(url, entry(url));
    expect(cache.size).to.equal(2);
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/b', '/c']);
  });

  it('counts a get as a use: the entry read last stays when a new one comes', () => {
    const cache = new ResponseCache<Entry>(2);
    cache.set('/a', entry('/a'));
    cache.set('/b', entry('/b'));
    expect(cache.get('/a')?.url).to.equal('/a');
    cache.set('/c', entry('/c'));
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/a', '/c']);
  });

  it('replaces an entry set again without counting it twice, and makes it the most recent', () => {
    const cache = new ResponseCache<Entry>(2);
    cache.set('/a', entry('/a'));
    cache.set('/b', entry('/b'));
    cache.set('/a', { ...entry('/a'), url: '/a again' });
    expect(cache.size).to.equal(2);
    cache.set('/c', entry('/c'));
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/a', '/c']);
    expect(cache.get('/a')?.url).to.equal('/a again');
  });

  it('keeps 2000 entries by default', () => {
    const cache = new ResponseCache<Entry>();
    for (let i = 0; i <= 2000; i++) cache.set(`/${i}`, entry(`/${i}`));
    expect(cache.size).to.equal(2000);
    expect(cache.get('/0')).to.equal(undefined);
    expect(cache.get('/1')?.url).to.equal('/1');
  });
});
