/**
 * The answer cache's store (read-api/cache/response-cache.ts): an entry is served only while the projections it
 * was read from stand where its stamp says (once they move it is dropped), and the store is bounded, least recently
 * used entries leaving first (2000 entries by default, and ANSWER_CACHE_MAX_BYTES of answers and keys), so arbitrary
 * query strings cannot grow memory.
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
    const cache = new ResponseCache<Entry>({ bytesOf: () => 0, maxEntries: 10 });
    cache.set('/a', { url: '/a', stamp: moving.view(), view: moving.view });
    expect(cache.get('/a')?.url).to.equal('/a');
    moving.move('catalogue@1:8');
    expect(cache.get('/a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('keeps at most maxEntries, the least recently set leaving first', () => {
    const cache = new ResponseCache<Entry>({ bytesOf: () => 0, maxEntries: 2 });
    for (const url of ['/a', '/b', '/c']) cache.set(url, entry(url));
    expect(cache.size).to.equal(2);
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/b', '/c']);
  });

  it('counts a get as a use: the entry read last stays when a new one comes', () => {
    const cache = new ResponseCache<Entry>({ bytesOf: () => 0, maxEntries: 2 });
    cache.set('/a', entry('/a'));
    cache.set('/b', entry('/b'));
    expect(cache.get('/a')?.url).to.equal('/a');
    cache.set('/c', entry('/c'));
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/a', '/c']);
  });

  it('replaces an entry set again without counting it twice, and makes it the most recent', () => {
    const cache = new ResponseCache<Entry>({ bytesOf: () => 0, maxEntries: 2 });
    cache.set('/a', entry('/a'));
    cache.set('/b', entry('/b'));
    cache.set('/a', { ...entry('/a'), url: '/a again' });
    expect(cache.size).to.equal(2);
    cache.set('/c', entry('/c'));
    expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/a', '/c']);
    expect(cache.get('/a')?.url).to.equal('/a again');
  });

  describe('bounded by bytes', () => {
    /** Entries whose answer holds as many bytes as their `url` says after its slash; keys of 2 characters (4 bytes). */
    const sized = (maxBytes: number) => new ResponseCache<Entry>({ bytesOf: (value) => Number(value.url.slice(3)), maxBytes });
    const body = (key: string, bytes: number): Entry => entry(`${key}/${bytes}`);

    it('drops the least recently used entries until the answers and keys fit, however few the entries', () => {
      const cache = sized(100);
      cache.set('/a', body('/a', 40));
      cache.set('/b', body('/b', 40));
      expect(cache.bytes).to.equal(88);
      cache.get('/a');
      cache.set('/c', body('/c', 40));
      expect(urls(cache, ['/a', '/b', '/c'])).to.deep.equal(['/a', '/c']);
      expect(cache.bytes).to.equal(88);
      cache.set('/d', body('/d', 90));
      expect(urls(cache, ['/a', '/b', '/c', '/d'])).to.deep.equal(['/d']);
      expect(cache.bytes).to.equal(94);
    });

    it('keeps no entry larger than the bound, and leaves the others in place', () => {
      const cache = sized(100);
      cache.set('/a', body('/a', 40));
      cache.set('/b', body('/b', 97));
      expect(urls(cache, ['/a', '/b'])).to.deep.equal(['/a']);
      expect(cache.bytes).to.equal(44);
      expect(sized(0).size).to.equal(0);
    });

    it('counts an entry once when set again, and gives its bytes back when it is dropped as moved', () => {
      const moving = projections('catalogue@1:7');
      const cache = sized(100);
      cache.set('/a', body('/a', 40));
      cache.set('/a', body('/a', 50));
      expect(cache.bytes).to.equal(54);
      cache.set('/m', { url: '/m/30', stamp: moving.view(), view: moving.view });
      expect(cache.bytes).to.equal(88);
      moving.move('catalogue@1:8');
      expect(cache.get('/m')).to.equal(undefined);
      expect(cache.bytes).to.equal(54);
    });

    it('counts the key: a long URL takes room of its own', () => {
      const cache = sized(1_000);
      cache.set(`/${'x'.repeat(499)}`, body('/a', 0));
      expect(cache.bytes).to.equal(1_000);
      cache.set('/b', body('/b', 1));
      expect(cache.size).to.equal(1);
      expect(cache.bytes).to.equal(5);
    });
  });

  it('keeps 2000 entries by default', () => {
    const cache = new ResponseCache<Entry>({ bytesOf: () => 0 });
    for (let i = 0; i <= 2000; i++) cache.set(`/${i}`, entry(`/${i}`));
    expect(cache.size).to.equal(2000);
    expect(cache.get('/0')).to.equal(undefined);
    expect(cache.get('/1')?.url).to.equal('/1');
  });
});
