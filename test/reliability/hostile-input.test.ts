/**
 * Hostile input against the whole read API (issue 7, item 5): a seeded, time-bounded fuzz over every public
 * operation and the discovery files, and one of JSON-RPC bodies against the MCP endpoint (issue 24), then the attacks a fuzzer finds only by luck (slow bodies, timing of the
 * verification operation).
 */
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import fc from 'fast-check';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadFixtureCatalogue } from '../api/support/catalogue-fixture.ts';
import { spyOnFilters, type FilterSpy } from '../support/filter-spy.ts';
import { deepBody, hostileAcceptSignature, hostileMcpRequest, hostileRequest, hostileTarget, type HostileRequest } from '../support/hostile-requests.ts';
import { send, type TestResponse } from '../support/http.ts';
import { rawExchange } from '../support/raw-http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20251121);
const FUZZ_BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 15_000);
/**
 * An answer that costs more CPU than this is a failure: every operation is a lookup in memory. CPU time, not wall
 * time: a busy machine stretches the latter, while a request that makes the server spin (a pathological pattern,
 * a quadratic parse) shows in the former.
 */
const SLOW_MS = 1_000;
/** Longest time a client may take to send a request, shortened from the server's default for the test. */
const REQUEST_TIMEOUT_MS = 1_500;
/** The query operators the read API itself builds; anything else came from a request. */
const OWN_OPERATORS = new Set(['$regex', '$all', '$gte', '$lte', '$in', '$eq']);

/**
 * Node refuses to send some bytes in a request line or header; such bytes go percent-encoded instead. Raw bytes
 * above 0x7e, which Node's parser refuses before the app sees them, have their own test below.
 */
const sendable = (text: string, allowed: RegExp) => [...text].map((c) => (allowed.test(c) ? c : encodeURIComponent(c))).join('');

/** CPU milliseconds this process (client and server together) spent since `since`. */
const cpuMsSince = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

async function timed(url: string, request: HostileRequest): Promise<TestResponse & { ms: number }> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, sendable(v, /[\u0020-\u007e]/)]));
  // Node frames a GET, DELETE or OPTIONS body only when told its length; unframed, it would read as a second request.
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  const started = process.cpuUsage();
  // A connection cut before the answer is read is a failure, not a 413: the contract owes the client the answer.
  const response = await exchange(url, { ...request, path: sendable(request.path, /[\u0021-\u007e]/), headers });
  return { ...response, ms: cpuMsSince(started) };
}

/** Sends a hostile request as it is: its path as the raw request target. */
const exchange = (base: string, request: HostileRequest): Promise<TestResponse> =>
  send(base, request.path, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });

/** fc.assert, with the report cut short: a counterexample may hold a 12 KB path. */
async function assertQuietly<T>(property: fc.IAsyncProperty<T>, parameters: fc.Parameters<T>): Promise<void> {
  const details = await fc.check(property, parameters);
  if (!details.failed) return;
  const example = JSON.stringify(details.counterexample).replace(/(.)\1{40,}/g, (run, c: string) => `${c}x${run.length}`);
  throw new Error(`property failed (seed ${details.seed}, path ${details.counterexamplePath}): ${example.slice(0, 1500)}\n${String(details.errorInstance).slice(0, 1500)}`);
}

/** The error shape of docs/api.md: `{detail: string}` or `{detail: [ValidationError, ...]}`. */
function expectErrorShape(response: TestResponse, what: string): void {
  const body = response.json<{ detail: unknown }>();
  expect(Object.keys(body), what).to.deep.equal(['detail']);
  if (typeof body.detail === 'string') return;
  expect(body.detail, what).to.be.an('array').that.is.not.empty;
  for (const issue of body.detail as Record<string, unknown>[]) {
    expect(issue, what).to.include.keys('type', 'loc', 'msg', 'input');
    expect(issue['type'], what).to.be.a('string');
    expect(issue['msg'], what).to.be.a('string');
    expect(['query', 'path', 'body'], what).to.include((issue['loc'] as unknown[])[0]);
  }
}

describe('hostile input against the whole read API', function () {
  this.timeout(60_000);
  let api: ReadApiUnderTest;
  let spy: FilterSpy;

  before(async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    spy = spyOnFilters(store);
    api = await startReadApiUnderTest({ readStore: spy.store, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  });
  after(async function () {
    await api.close();
  });

  it(`answers random and malicious requests with 2xx-4xx, the error shape and in under ${SLOW_MS} ms of CPU, and logs no error (seed ${FUZZ_SEED})`, async function () {
    let runs = 0;
    let slowest = 0;
    const statuses = new Set<number>();
    await assertQuietly(
      fc.asyncProperty(hostileRequest, async (request) => {
        runs += 1;
        const response = await timed(api.url, request);
        const what = `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers)} body ${String(request.body).slice(0, 200)}: ${response.status} ${response.text.slice(0, 300)}`;
        statuses.add(response.status);
        slowest = Math.max(slowest, response.ms);
        expect(response.status, what).to.be.within(200, 499);
        expect(response.ms, what).to.be.below(SLOW_MS);
        if (response.status >= 400 && request.method !== 'HEAD') expectErrorShape(response, what);
      }),
      { seed: FUZZ_SEED, numRuns: 3_000, interruptAfterTimeLimit: FUZZ_BUDGET_MS, markInterruptAsFailure: false, endOnFailure: true },
    );
    console.log(`      fuzz: ${runs} requests, statuses ${[...statuses].sort().join(' ')}, slowest ${Math.round(slowest)} ms of CPU`);
    expect(runs, 'too few requests to mean anything').to.be.above(200);
    expect(statuses, 'the fuzz never reached a successful answer').to.include(200);
    expect(statuses, 'the fuzz never reached validation').to.include(422);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
    expect((await send(api.url, '/api/public/status')).status, 'the server is still up').to.equal(200);
  });

  it(`answers every form of request target and random Accept-Signature values, sent over a raw socket, with 2xx-4xx, the error shape and the front door's headers, and never signs a 429 (seed ${FUZZ_SEED})`, async function () {
    let runs = 0;
    let signed = 0;
    const statuses = new Set<number>();
    const rawRequest = fc.record({
      method: fc.constantFrom('GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'CONNECT', 'PUT'),
      target: hostileTarget,
      host: fc.constantFrom('127.0.0.1', 'WatchCat.Example:8443', '[::1]:80', 'h'.repeat(300), 'a@b', '', '%00'),
      origin: fc.boolean(),
      acceptSignature: fc.option(hostileAcceptSignature, { nil: undefined, freq: 3 }),
    });
    await assertQuietly(
      fc.asyncProperty(rawRequest, async ({ method, target, host, origin, acceptSignature }) => {
        runs += 1;
        const head = `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${origin ? 'Origin: https://evil.example\r\n' : ''}`
          + `${acceptSignature === undefined ? '' : `Accept-Signature: ${acceptSignature}\r\n`}${method === 'POST' || method === 'PUT' ? 'Content-Length: 0\r\n' : ''}Connection: close\r\n\r\n`;
        const answer = await rawExchange(api.url, head);
        const what = `${head.slice(0, 600)} -> ${answer ? `${answer.status} ${JSON.stringify(answer.headers).slice(0, 400)} ${answer.body.slice(0, 200)}` : 'no answer'}`;
        expect(answer, what).not.to.equal(undefined);
        statuses.add(answer!.status);
        expect(answer!.status, what).to.be.within(200, 499);
        expect(answer!.headers['x-content-type-options'], what).to.equal('nosniff');
        if (origin) expect(answer!.headers['access-control-allow-origin'], what).to.equal('*');
        if (answer!.status >= 400 && method !== 'HEAD') {
          expect(answer!.headers['content-type'], what).to.equal('application/json; charset=utf-8');
          expect(Object.keys(JSON.parse(answer!.body) as object), what).to.deep.equal(['detail']);
        }
        if ('signature' in answer!.headers) {
          signed += 1;
          expect(answer!.status, what).not.to.equal(429);
          expect(answer!.headers['signature-input'], what).to.include('"@authority";req');
        }
      }),
      { seed: FUZZ_SEED, numRuns: 1_500, interruptAfterTimeLimit: FUZZ_BUDGET_MS, markInterruptAsFailure: false, endOnFailure: true },
    );
    console.log(`      raw fuzz (seed ${FUZZ_SEED}): ${runs} requests, ${signed} signed, statuses ${[...statuses].sort().join(' ')}`);
    expect(runs, 'too few requests to mean anything').to.be.above(200);
    expect(signed, 'the fuzz never reached a signed answer').to.be.above(0);
    expect(statuses, 'the fuzz never reached an answer').to.include(200);
    expect(statuses, 'the fuzz never reached a refused target').to.include(400);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
    expect((await send(api.url, '/api/public/status')).status, 'the server is still up').to.equal(200);
  });

  it(`answers price bodies nested as deep as the body limit allows with 422, in under ${SLOW_MS} ms of CPU (seed ${FUZZ_SEED})`, async function () {
    let deepest = 0;
    await assertQuietly(
      fc.asyncProperty(deepBody, async (body) => {
        deepest = Math.max(deepest, body.length);
        const response = await timed(api.url, { method: 'POST', path: '/api/public/configurator/price', headers: { 'content-type': 'application/json' }, body });
        const what = `${body.slice(0, 80)}... (${body.length} chars): ${response.status} ${response.text.slice(0, 300)}`;
        expect(response.status, what).to.equal(422);
        expect(response.ms, what).to.be.below(SLOW_MS);
        expectErrorShape(response, what);
      }),
      { seed: FUZZ_SEED, numRuns: 150, interruptAfterTimeLimit: FUZZ_BUDGET_MS, markInterruptAsFailure: false, endOnFailure: true },
    );
    expect(deepest, 'the fuzz never came near the body limit').to.be.above(12 * 1024);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it(`answers random and malicious JSON-RPC bodies on /mcp with 2xx-4xx, JSON-RPC or contract error shapes, in under ${SLOW_MS} ms, and logs no error (seed ${FUZZ_SEED})`, async function () {
    let runs = 0;
    const statuses = new Set<number>();
    await assertQuietly(
      fc.asyncProperty(hostileMcpRequest, async (request) => {
        runs += 1;
        const response = await timed(api.url, request);
        const what = `${request.method} ${request.path} ${JSON.stringify(request.headers)} body ${String(request.body).slice(0, 300)}: ${response.status} ${response.text.slice(0, 300)}`;
        statuses.add(response.status);
        expect(response.status, what).to.be.within(200, 499);
        expect(response.ms, what).to.be.below(SLOW_MS);
        if (response.text === '') {
          // A notification is accepted with no content, and so is a CORS preflight.
          expect(response.status === 202 || (request.method === 'OPTIONS' && response.status === 204), what).to.equal(true);
          return;
        }
        const body = response.json<Record<string, any>>();
        if (body['jsonrpc'] === undefined) {
          expect(response.status, what).to.be.at.least(400);
          expectErrorShape(response, what);
          return;
        }
        expect(body['jsonrpc'], what).to.equal('2.0');
        expect(Object.keys(body).filter((key) => key === 'result' || key === 'error'), what).to.have.length(1);
        if (body['error'] !== undefined) expect(body['error'].code, what).to.be.a('number');
        else if (body['result'].isError === true) expect(JSON.parse(body['result'].content[0].text), what).to.have.property('detail');
      }),
      { seed: FUZZ_SEED, numRuns: 1_500, interruptAfterTimeLimit: FUZZ_BUDGET_MS / 2, markInterruptAsFailure: false, endOnFailure: true },
    );
    console.log(`      MCP fuzz: ${runs} requests, statuses ${[...statuses].sort().join(' ')}`);
    expect(runs, 'too few requests to mean anything').to.be.above(200);
    expect(statuses, 'the fuzz never reached a tool').to.include(200);
    expect(statuses, 'the fuzz never reached a JSON-RPC error').to.include(400);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('never lets a request choose a query operator or a script: the read store only sees the API\'s own operators', async function () {
    // Its own requests, so that the test proves the same alone (mocha -g, --parallel) as after the fuzz above.
    for (const request of fc.sample(hostileRequest, { seed: FUZZ_SEED, numRuns: 300 })) await timed(api.url, request);
    for (const query of ['search[$regex]=.*', 'collection[$ne]=x', 'min_price[$gt]=0', 'search=%7B%22%24gt%22%3A%22%22%7D&min_price=1&max_price=2']) {
      await send(api.url, `/api/public/catalogue?${query}`);
    }
    expect(spy.operators.size, 'no filter was built with an operator').to.be.above(0);
    for (const [operator, example] of spy.operators) expect(OWN_OPERATORS, `${operator} in ${example}`).to.include(operator);
    for (const field of spy.fields) expect(field, 'a field path taken from a request').to.match(/^[a-z_]+(\.[a-z_]+)?$/);
  });

  it('refuses operator and script filters in the in-memory read store, whatever reaches it', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    for (const filter of [{ $where: 'true' }, { $expr: { $eq: [1, 1] } }, { name: { $function: { body: 'return true', args: [], lang: 'js' } } }]) {
      let refused = false;
      try {
        await store.find('watches', filter);
      } catch {
        refused = true;
      }
      expect(refused, JSON.stringify(filter)).to.equal(true);
    }
  });

  it('answers requests Node cannot parse (raw non-ASCII request line, head above 16 KiB) in the error shape', async function () {
    const rawByte = await exchange(api.url, { method: 'GET', path: '/api/public/catalogue?search=\u00c9dition', headers: {} });
    expect(rawByte.status).to.equal(400);
    expect(rawByte.json()).to.deep.equal({ detail: 'Bad Request' });
    const huge = await exchange(api.url, { method: 'GET', path: `/api/public/catalogue?search=${'A'.repeat(20_000)}`, headers: {} });
    expect(huge.status).to.equal(431);
    expect(huge.json()).to.deep.equal({ detail: 'Request Header Fields Too Large' });
    expect((await send(api.url, '/api/public/status')).status, 'the server is still up').to.equal(200);
  });

  it('keeps answering other clients at once while twenty clients trickle bodies, then cuts the trickles with 408', async function () {
    const slow = Array.from({ length: 20 }, () => {
      const req = httpRequest(`${api.url}/api/public/configurator/price`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      const answer = new Promise<{ status: number; body: string; ms: number } | 'cut'>((resolve) => {
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
        });
        req.on('error', () => resolve('cut'));
      });
      const started = performance.now();
      req.write('{"collection":');
      const drip = setInterval(() => req.write(' '), 50);
      return { req, drip, answer };
    });
    try {
      // Not held behind the trickles: the first answer comes while every one of them is still open (they are cut
      // only after the request timeout), and it and the next ones cost no more CPU than any request.
      let cut = 0;
      for (const { answer } of slow) void answer.then(() => { cut += 1; });
      for (let i = 0; i < 20; i++) {
        const started = process.cpuUsage();
        const answer = await send(api.url, '/api/public/catalogue?search=regate');
        expect(answer.status).to.equal(200);
        expect(cpuMsSince(started)).to.be.below(SLOW_MS);
        if (i === 0) expect(cut, 'trickled requests cut before another client was answered').to.equal(0);
      }
      for (const { answer } of slow) {
        const got = await Promise.race([answer, sleep(REQUEST_TIMEOUT_MS + 3_000).then(() => 'still open' as const)]);
        expect(got, 'a trickled request').to.be.an('object');
        const { status, body, ms } = got as { status: number; body: string; ms: number };
        expect(status).to.equal(408);
        expect(JSON.parse(body)).to.deep.equal({ detail: 'Request Timeout' });
        expect(ms).to.be.below(REQUEST_TIMEOUT_MS + 2_500);
      }
      expect(api.errors().map((line) => line.msg), 'a cut request is not a server error').to.deep.equal([]);
    } finally {
      for (const { req, drip } of slow) {
        clearInterval(drip);
        req.destroy();
      }
    }
  });
});
