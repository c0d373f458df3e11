/**
 * Issue 29, item 4: one pino line per public request (method, path, status, duration, request id), on the real
 * public app; `REQUEST_LOG_SAMPLE` thins the lines out, never those of a 5xx. On main at 204df55 the public API
 * logged no request at all.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { startTestApp, type TestApp } from './support/test-app.ts';

interface Line { msg: string; method: string; path: string; status: number; ms: number; request_id: string }

function capturingLogger(): { logger: pino.Logger; lines: () => Line[] } {
  const chunks: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } });
  return {
    logger: pino({ level: 'info' }, sink),
    lines: () => chunks.join('').split('\n').filter(Boolean).map((text) => JSON.parse(text) as Line).filter((line) => line.msg === 'request'),
  };
}

describe('request log', function () {
  this.timeout(20_000);
  let app: TestApp | undefined;
  afterEach(async () => app?.close());

  it('writes one line per request with its method, path without query, final status, duration and request id', async () => {
    const log = capturingLogger();
    app = await startTestApp({ logger: log.logger });
    await fetch(`${app.url}/api/public/catalogue?search=secret-term`, { headers: { 'X-Request-Id': 'edge-42.a' } });
    await fetch(`${app.url}/api/public/nowhere`);
    await fetch(`${app.url}/api/public/catalogue`, { headers: { 'X-Request-Id': 'not a token\u00e9' } });
    const lines = log.lines();
    expect(lines).to.have.length(3);
    expect(lines[0]).to.include({ method: 'GET', path: '/api/public/catalogue', status: 200, request_id: 'edge-42.a' });
    expect(JSON.stringify(lines[0])).not.to.include('secret-term');
    expect(lines[1]).to.include({ method: 'GET', path: '/api/public/nowhere', status: 404 });
    expect(lines[2]!.request_id, 'a made id instead of one that is not a plain token').to.match(/^[0-9a-f-]{36}$/);
    expect(new Set(lines.map((line) => line.request_id)).size).to.equal(3);
    for (const line of lines) expect(line.ms).to.be.a('number').and.at.least(0).and.below(5_000);
  });

  it('logs about the configured share of requests, and every 5xx even at a sample of 0', async () => {
    const sampled = capturingLogger();
    app = await startTestApp({ logger: sampled.logger }, { REQUEST_LOG_SAMPLE: '0.25' });
    for (let i = 0; i < 400; i += 1) await fetch(`${app.url}/api/public/collections`);
    // Binomial(400, 0.25): mean 100, standard deviation ~8.7; these bounds are more than 5 deviations out.
    expect(sampled.lines().length).to.be.within(55, 145);
    await app.close();

    const none = capturingLogger();
    app = await startTestApp({ logger: none.logger }, { REQUEST_LOG_SAMPLE: '0' });
    await fetch(`${app.url}/api/public/collections`);
    app.store.failWith = new Error('store down');
    const failed = await fetch(`${app.url}/api/public/collections?lang=fr`);
    expect(failed.status).to.be.at.least(500);
    expect(none.lines().map((line) => line.status)).to.deep.equal([failed.status]);
  });
});
