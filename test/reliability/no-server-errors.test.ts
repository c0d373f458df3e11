/**
 * No request of any shape gets a 5xx from the public port (docs/api.md, "Signed answers", last item; issue 21):
 * request targets a URL parser refuses, or that name no path, get a JSON 400 with the security and CORS headers;
 * an error anywhere in the chain, signing included, goes out through the front door as JSON with those headers,
 * is logged by the logger (not on stderr) and is counted in the metrics with the status actually sent.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { rawExchange, type RawAnswer } from '../support/raw-http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const ORIGIN = 'https://shop.example';
const head = (requestLine: string, extra = '') => `${requestLine}\r\nHost: 127.0.0.1\r\nOrigin: ${ORIGIN}\r\n${extra}Connection: close\r\n\r\n`;

function expectFrontDoorHeaders(answer: RawAnswer, what: string): void {
  expect(answer.headers['content-type'], what).to.equal('application/json; charset=utf-8');
  expect(answer.headers['x-content-type-options'], what).to.equal('nosniff');
  expect(answer.headers['x-frame-options'], what).to.equal('DENY');
  expect(answer.headers['access-control-allow-origin'], what).to.equal('*');
}

/** The requests counted by /metrics with this status, all routes and methods together. */
async function countedWithStatus(api: ReadApiUnderTest, status: number): Promise<number> {
  const text = (await send(api.opsUrl, '/metrics')).text;
  return [...text.matchAll(new RegExp(`^http_requests_total\\{[^}]*status="${status}"[^}]*\\} (\\d+)$`, 'gm'))]
    .reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('no request of any shape gets a 5xx', function () {
  this.timeout(20_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('answers request targets that cannot be parsed or name no path with a JSON 400 carrying the security and CORS headers, unsigned', async () => {
    api = await startReadApiUnderTest();
    const targets = [
      'GET http://[::1/api/public/status HTTP/1.1',
      'GET http://u@[::1/api/public/status HTTP/1.1',
      'OPTIONS * HTTP/1.1',
      'GET * HTTP/1.1',
      'CONNECT 127.0.0.1:443 HTTP/1.1',
      'CONNECT [::1]:443 HTTP/1.1',
    ];
    for (const requestLine of targets) {
      const answer = await rawExchange(api.url, head(requestLine, 'Accept-Signature: sig1=("@status")\r\n'));
      expect(answer, requestLine).not.to.equal(undefined);
      expect(answer!.status, requestLine).to.equal(400);
      expect(JSON.parse(answer!.body), requestLine).to.deep.equal({ detail: 'Bad Request' });
      expectFrontDoorHeaders(answer!, requestLine);
      expect(answer!.headers, requestLine).not.to.have.property('signature');
    }
    expect(await countedWithStatus(api, 500)).to.equal(0);
    // Counted as the 400s they were; Node keeps CONNECT from the app, so the metrics never see those two.
    expect(await countedWithStatus(api, 400)).to.equal(targets.filter((line) => !line.startsWith('CONNECT')).length);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('answers a failure while signing with the JSON 500 of the front door, logged by the logger, not on stderr, and counted as a 500', async function () {
    const keys = await testSigningKeys();
    // A key the Ed25519 signer cannot use: signing throws, as any fault of the signing step would.
    const broken = { ...keys, current: { ...keys.current, privateKey: generateKeyPairSync('x25519').privateKey } };
    api = await startReadApiUnderTest({ signingKeys: broken });
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    let answer;
    try {
      answer = await rawExchange(api.url, head('GET /api/public/status HTTP/1.1', 'Accept-Signature: sig1=("@status")\r\n'));
    } finally {
      process.stderr.write = write;
    }
    expect(answer!.status).to.equal(500);
    expect(JSON.parse(answer!.body)).to.deep.equal({ detail: 'Internal Server Error' });
    expectFrontDoorHeaders(answer!, 'signing failure');
    for (const name of ['signature', 'signature-input', 'content-digest', 'signed-request']) expect(answer!.headers, name).not.to.have.property(name);
    expect(written.join('')).to.equal('');
    expect(api.errors().map((line) => line.msg)).to.deep.equal(['signing the answer failed']);
    expect(await countedWithStatus(api, 500)).to.equal(1);
    expect(await countedWithStatus(api, 200), 'the 500 is not counted as the 200 it was about to be').to.equal(0);
  });
});
