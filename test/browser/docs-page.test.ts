/**
 * `/docs` in a real browser (issue 14, item 3): Debian's chromium, driven by playwright-core. The page loads,
 * lists the seven operations of docs/api.md and the transparency log's public endpoints, logs no console error and sends no request off this machine, and
 * "Try it out" on the catalogue gets its 200 from the very instance that served the page (the OpenAPI `servers`
 * entry is relative when PUBLIC_BASE_URL is unset). On a service holding the demo catalogue, "Try it out" on the
 * price operation and on a watch's detail succeeds at the first click, with the document's examples as they are
 * (issue 30). A screenshot is kept under test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { CONTRACT_LOG_ENDPOINTS } from '../support/contract-answers.ts';
import { demoReadStore } from '../support/demo-read-store.ts';
import { launchChromium } from '../support/chromium.ts';
import { registerLegSuite } from '../support/legs.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** The seven operations, as docs/api.md names them. */
const CONTRACT_OPERATIONS = [
  'GET /api/public/status',
  'GET /api/public/catalogue',
  'GET /api/public/catalogue/{reference}',
  'GET /api/public/collections',
  'GET /api/public/configurator/options/{collection}',
  'POST /api/public/configurator/price',
  'GET /api/public/verify/{serial}',
];

describe('/docs in a real browser (chromium)', function () {
  this.timeout(120_000);
  registerLegSuite('browser', this);
  let api: ReadApiUnderTest;
  let browser: Browser;

  before(async function () {
    browser = await launchChromium(this);
    api = await startReadApiUnderTest();
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('lists the seven operations and the log\'s endpoints with no console error and no request off this machine, and Try it out reaches this instance', async () => {
    const origin = new URL(api.url).origin;
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    const offMachine: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === origin || url.protocol === 'data:') return route.continue();
      offMachine.push(url.href);
      return route.abort();
    });

    await page.goto(`${api.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const listed = await page.locator('.opblock-summary').evaluateAll((blocks) => blocks.map((block) => {
      const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
      const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
      return `${method} ${path}`;
    }));
    expect([...listed].sort()).to.deep.equal([...CONTRACT_OPERATIONS, ...CONTRACT_LOG_ENDPOINTS.map((op) => `${op.method} ${op.path}`)].sort());

    const catalogue = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/api/public/catalogue"]') });
    await catalogue.locator('.opblock-summary').click();
    await catalogue.getByRole('button', { name: 'Try it out' }).click();
    const [request] = await Promise.all([
      page.waitForRequest((sent) => new URL(sent.url()).pathname === '/api/public/catalogue'),
      catalogue.getByRole('button', { name: 'Execute' }).click(),
    ]);
    expect(new URL(request.url()).origin, 'the server Try it out called').to.equal(origin);
    expect((await request.response())?.status()).to.equal(200);
    const shownStatus = catalogue.locator('.live-responses-table tbody .response-col_status').first();
    await shownStatus.waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs-try-it-out.png`, fullPage: true });
    expect((await shownStatus.textContent())?.trim()).to.equal('200');
    expect(consoleErrors).to.deep.equal([]);
    expect(offMachine).to.deep.equal([]);
  });

  it('runs "Try it out" on the price operation and on a watch\'s detail with the document\'s examples: 200 at the first click, on the demo catalogue', async function () {
    const demo = await startReadApiUnderTest({ readStore: await demoReadStore() });
    try {
      const page = await browser.newPage();
      await page.goto(`${demo.url}/docs`);
      await page.locator('.opblock').first().waitFor();
      for (const [kind, path] of [['post', '/api/public/configurator/price'], ['get', '/api/public/catalogue/{reference}']] as const) {
        const block = page.locator(`.opblock-${kind}`).filter({ has: page.locator(`[data-path="${path}"]`) });
        await block.locator('.opblock-summary').click();
        await block.getByRole('button', { name: 'Try it out' }).click();
        const [request] = await Promise.all([
          page.waitForRequest((sent) => sent.url().startsWith(demo.url) && sent.method() === kind.toUpperCase() && !sent.url().includes('/docs')),
          block.getByRole('button', { name: 'Execute' }).click(),
        ]);
        const response = await request.response();
        expect(response?.status(), `${kind} ${path}: ${await response?.text()}`).to.equal(200);
      }
      await page.screenshot({ path: `${ARTIFACTS}/docs-try-it-out-price.png`, fullPage: true });
    } finally {
      await demo.close();
    }
  });
});
