/**
 * A page on another site reading the public port in a real browser (Debian's chromium, driven by playwright-core):
 * docs/api.md, "CORS" and "Signed answers", lets any page ask any public route for a signed answer
 * (`Accept-Signature`) and for one at or past its own change (`X-Min-Position`). Those headers make chromium send a
 * preflight first, and the fetch fails outright unless the preflight allows them. On main at b3120d0 a tile's
 * preflight was 404 and the verifier key's and llms.txt's allowed no request header: each fetch below threw
 * `TypeError: Failed to fetch`.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { launchChromium } from '../support/chromium.ts';
import { registerLegSuite } from '../support/legs.ts';

const ASK_SIGNATURE = 'sig1=("@status" "content-digest");alg="ed25519"';

describe('a page on another site asking the log and the files for signed answers (chromium)', function () {
  this.timeout(180_000);
  registerLegSuite('browser', this);
  let dataDir: string;
  let service: RunningWatchcat;
  let api: string;
  /** The other site: a blank page on another port, so another origin. */
  let site: Server;
  let siteUrl: string;
  let browser: Browser;

  before(async function () {
    browser = await launchChromium(this);
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-cross-origin-'));
    service = await startWatchcat(
      loadConfig({ DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', FILE_RATE_LIMIT_PER_MINUTE: '10000' }),
      createLogger('silent', 'cross-origin-test'),
    );
    api = `http://127.0.0.1:${service.ports.public}`;
    site = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>shop</title>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await service?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets a tile, the verifier key, the key history and llms.txt signed, sending X-Min-Position', async () => {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    expect(new URL(page.url()).origin, 'the page is on another site than the API').not.to.equal(new URL(api).origin);
    const paths = ['/transparency/tile/0/000', '/.well-known/transparency/key', '/.well-known/transparency/keys', '/llms.txt'];
    const answers = await page.evaluate(async ({ api, paths, ask }) => Promise.all(paths.map(async (path) => {
      try {
        const answer = await fetch(`${api}${path}`, { headers: { 'accept-signature': ask, 'x-min-position': '1' } });
        return { path, status: answer.status, signature: answer.headers.get('signature'), bytes: (await answer.arrayBuffer()).byteLength };
      } catch (error) {
        return { path, failed: String(error) };
      }
    })), { api, paths, ask: ASK_SIGNATURE });
    for (const answer of answers) {
      expect(answer, answer.path).not.to.have.property('failed');
      expect(answer.status, answer.path).to.equal(200);
      expect(answer.signature, `${answer.path}: the signature, readable by the page`).to.match(/^sig1=:[A-Za-z0-9+/]+=*:$/);
      expect(answer.bytes, answer.path).to.be.above(0);
    }
  });
});
