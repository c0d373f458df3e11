/**
 * What `If-None-Match` may and may not turn into a 304, and what the answer cache may and may not answer (issue 23,
 * cases the mutation run found unproven). docs/api.md: "Every 200 to a GET carries an ETag; a request with a
 * matching If-None-Match gets 304 with no body"; RFC 9110, 13.1.2: a weak comparison, any tag of a list or `*`
 * matches, and 304 is an answer to GET and HEAD only.
 */
import { expect } from 'chai';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { postJson, send } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';

/** A read store that counts every read, so a test can tell whether an operation ran or the cache answered. */
function countingReads(store: ReadStore): { store: ReadStore; reads: () => number } {
  let reads = 0;
  const counted = Object.create(store) as ReadStore;
  counted.get = (...args: Parameters<ReadStore['get']>) => { reads += 1; return store.get(...args); };
  counted.find = ((...args: Parameters<ReadStore['find']>) => { reads += 1; return store.find(...args); }) as ReadStore['find'];
  counted.count = (...args: Parameters<ReadStore['count']>) => { reads += 1; return store.count(...args); };
  return { store: counted, reads: () => reads };
}

describe('conditional requests and the answer cache', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const start = async () => {
    const counting = countingReads(createMemoryReadStore());
    await loadFixtureCatalogue(counting.store);
    api = await startReadApiUnderTest({ readStore: counting.store });
    return { url: api.url, reads: counting.reads };
  };

  it('matches a weak tag only when it names this answer, and `*` anywhere in a list', async () => {
    const { url } = await start();
    const path = '/api/public/catalogue/RG-200';
    const etag = (await send(url, path)).headers['etag'] as string;
    const other = await send(url, path, { headers: { 'if-none-match': 'W/"another-answer"' } });
    expect(other.status, 'a weak tag of another answer').to.equal(200);
    expect(other.json<{ reference: string }>().reference).to.equal('RG-200');
    for (const header of [`"another-answer", *`, `W/"another-answer", W/${etag}`]) {
      const matched = await send(url, path, { headers: { 'if-none-match': header } });
      expect(matched.status, header).to.equal(304);
      expect(matched.text, header).to.equal('');
    }
  });

  it('never answers 304 to an error answer, nor tags it', async () => {
    const { url } = await start();
    for (const headers of [{ 'if-none-match': '*' }, {}] as Record<string, string>[]) {
      const missing = await send(url, '/api/public/catalogue/NOPE-1', { headers });
      expect(missing.status).to.equal(404);
      expect(missing.json()).to.deep.equal({ detail: 'Watch not found' });
      expect(missing.headers['etag']).to.equal(undefined);
    }
  });

  it('never answers 304 to a POST, whatever its If-None-Match', async () => {
    const { url } = await start();
    const body = { collection: 'regate', model_ref: 'RG-200' };
    const answer = await postJson(url, '/api/public/configurator/price', body, { 'if-none-match': '*' });
    expect(answer.status).to.not.equal(304);
    expect(answer.text).to.not.equal('');
  });

  it('answers a repeated GET from the cache without reading the store, and never a POST to the same URL', async () => {
    const { url, reads } = await start();
    const path = '/api/public/collections';
    const first = await send(url, path);
    const readsForOne = reads();
    const again = await send(url, path);
    expect(again.text).to.equal(first.text);
    expect(reads(), 'the repeated GET read the store').to.equal(readsForOne);
    const posted = await postJson(url, path, {});
    expect(posted.status, 'a POST to a URL whose GET is cached').to.not.equal(200);
    expect(posted.text).to.not.equal(first.text);
  });
});
