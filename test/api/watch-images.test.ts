/**
 * Every image URL a consumer gets resolves (issue 30): on a read API holding the demo catalogue as `npm start`
 * loads it, each `image.url` of the catalogue and each of a watch's `images` answers 200 with an image, relative to
 * the API's origin as the contract's `url` fields are.
 */
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { demoReadStore } from '../support/demo-read-store.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

describe('watch images of the demo catalogue', function () {
  this.timeout(60_000);
  let api: ReadApiUnderTest;

  before(async function () {
    api = await startReadApiUnderTest({ readStore: await demoReadStore() });
  });
  after(() => api.close());

  async function expectImage(url: string): Promise<void> {
    const answer = await send(api.url, url);
    expect(answer.status, url).to.equal(200);
    expect(answer.headers['content-type'], url).to.equal('image/svg+xml');
    expect(answer.text, url).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/s);
  }

  it('serves an image at every image.url of the catalogue, and at every URL of a watch\'s images', async function () {
    const page = (await send(api.url, '/api/public/catalogue?limit=100')).json<{ watches: { reference: string; image: { url: string } | null }[] }>();
    expect(page.watches.length).to.be.above(10);
    for (const watch of page.watches) {
      expect(watch.image, watch.reference).not.to.equal(null);
      await expectImage(watch.image!.url);
    }
    const detail = (await send(api.url, `/api/public/catalogue/${page.watches[0]!.reference}`)).json<{ images: { url: string }[] }>();
    expect(detail.images.length).to.be.at.least(3);
    for (const image of detail.images) await expectImage(image.url);
  });

  it('draws the .jpg names a store loaded with the demo before issue 30 still holds', async function () {
    await expectImage('/images/watches/AUR-SP-001/main.jpg');
  });

  it('answers a path that names no image with the contract\'s 404, and a matching If-None-Match with 304', async function () {
    for (const path of ['/images/watches/AUR-SP-001/back.svg', '/images/watches/AUR-SP-001/main.png', '/images/watches/%3Cscript%3E/main.svg']) {
      const answer = await send(api.url, path);
      expect(answer.status, path).to.equal(404);
      expect(answer.json(), path).to.deep.equal({ detail: 'Not Found' });
    }
    const first = await send(api.url, '/images/watches/AUR-SP-001/main.svg');
    const again = await send(api.url, '/images/watches/AUR-SP-001/main.svg', { headers: { 'if-none-match': `W/${String(first.headers['etag'])}` } });
    expect(again.status).to.equal(304);
  });
});
