/**
 * `/mcp` as an HTTP route of the public port (docs/api.md, "Agents over MCP", "Rate limits", "Signed answers"):
 * malformed JSON-RPC gets JSON-RPC errors and never a 5xx, the body limit of every public body, the general and
 * verification limits counted for calls as for the HTTP operations, 429s with the usual status and headers and a
 * JSON-RPC error for body, and answers that go out through the whole chain (a signed MCP answer verifies; the
 * metrics count it). Protocol housekeeping and what SDK clients make of a refusal: mcp-limits.test.ts.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { send, type TestResponse } from '../support/http.ts';
import { expectMcpRefused, postMcp, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { contentDigest, publicKeyFromX, readSignatureInput, signatureBase, signatureBytes, verifyBase } from '../support/rfc9421-by-hand.ts';
import { readsThrough } from '../support/reads-through.ts';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectJsonRpcError(answer: TestResponse, code: number, what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).to.be.within(200, 499);
  const body = answer.json<{ jsonrpc: string; error?: { code: number; message: string } }>();
  expect(body.jsonrpc, what).to.equal('2.0');
  expect(body.error?.code, `${what}: ${answer.text}`).to.equal(code);
}

/** The usual refusal: 429, the figures, `Retry-After` within the window, the contract's body. */
function expectRefused(answer: TestResponse, max: number, what: string): void {
  expect(answer.status, what).to.equal(429);
  expect(answer.json(), what).to.deep.equal({ detail: `Rate limit exceeded: ${max} per 1 minute` });
  expect(answer.headers['x-ratelimit-limit'], what).to.equal(String(max));
  expect(answer.headers['x-ratelimit-remaining'], what).to.equal('0');
  expect(Number(answer.headers['retry-after']), what).to.be.within(1, 60);
}

describe('MCP endpoint: JSON-RPC errors, limits and the Koa chain', function () {
  this.timeout(20_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async function () {
    await api?.close();
    api = undefined;
  });

  it('answers GET and DELETE on /mcp with 405 in the contract\'s shape, and serves POST on every spelling the limits count', async function () {
    api = await startReadApiUnderTest();
    for (const method of ['GET', 'DELETE']) {
      const answer = await send(api.url, '/mcp', { method, headers: { accept: 'text/event-stream' } });
      expect(answer.status, method).to.equal(405);
      expect(answer.json(), method).to.deep.equal({ detail: 'Method Not Allowed' });
      expect(answer.headers['allow'], method).to.include('POST');
    }
    for (const path of ['/MCP', '/mcp/']) {
      const answer = await send(api.url, path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(toolCall('list_collections', {})) });
      expect(answer.status, path).to.equal(200);
    }
  });

  it('answers a browser\'s CORS preflight with 204 allowing POST and the protocol\'s headers, and any origin', async function () {
    api = await startReadApiUnderTest();
    const answer = await send(api.url, '/mcp', {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' },
    });
    expect(answer.status).to.equal(204);
    expect(answer.headers['access-control-allow-origin']).to.equal('*');
    expect(answer.headers['access-control-allow-methods']).to.include('POST');
    const allowed = String(answer.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).to.include.members(['content-type', 'accept', 'mcp-protocol-version']);
  });

  // docs/api.md, "Read your writes": any MCP request may send X-Min-Position on the POST /mcp; a browser preflights it
  // (not a CORS-safelisted header) and sends nothing unless the preflight allows it.
  it('lets a page on another site send X-Min-Position: the CORS preflight allows it', async function () {
    api = await startReadApiUnderTest();
    const answer = await send(api.url, '/mcp', {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version, x-min-position' },
    });
    expect(answer.status).to.equal(204);
    const allowed = String(answer.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).to.include.members(['content-type', 'mcp-protocol-version', 'x-min-position']);
  });

  it('answers malformed JSON-RPC with JSON-RPC errors, never a 5xx, and logs no error', async function () {
    api = await startReadApiUnderTest();
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const cases: { what: string; body: string; code: number; headers?: Record<string, string> }[] = [
      { what: 'bad JSON', body: '{"jsonrpc":"2.0","id":1,"method":', code: -32700 },
      { what: 'empty body', body: '', code: -32700 },
      { what: 'JSON that is no message', body: '42', code: -32600 },
      { what: 'wrong JSON-RPC version', body: JSON.stringify({ ...toolCall('get_status', {}), jsonrpc: '1.0' }), code: -32600 },
      { what: 'a batch', body: JSON.stringify([toolCall('get_status', {}, 1), toolCall('verify_serial', { serial: 'AUR-0001' }, 2)]), code: -32600 },
      { what: 'an empty batch', body: '[]', code: -32600 },
      { what: 'an unknown method', body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'catalogue/delete', params: {} }), code: -32601 },
      { what: 'tools/call without a name', body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } }), code: -32602 },
      // Params must be an object: -32602 (the transport alone answered -32700 for it).
      { what: 'params nested deep', body: `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":${deep(7000)}}`, code: -32602 },
      { what: 'an unknown protocol version', body: JSON.stringify(toolCall('get_status', {})), code: -32000, headers: { 'mcp-protocol-version': '1999-01-01' } },
    ];
    for (const { what, body, code, headers } of cases) {
      const answer = await postMcp(api.url, body, headers ? { headers } : {});
      expectJsonRpcError(answer, code, what);
      expect(answer.headers['content-type'], what).to.match(/^application\/json\b/);
      if (what.endsWith('batch')) expect(answer.json().error.message, what).to.match(/batches are not accepted/);
    }
    const refusedAccept = await postMcp(api.url, toolCall('get_status', {}), { headers: { accept: 'application/json' } });
    expectJsonRpcError(refusedAccept, -32000, 'no text/event-stream in Accept');
    expect(refusedAccept.status).to.equal(406);
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('answers JSON that is no JSON-RPC message with -32600 Invalid Request saying what is wrong, to the request\'s id when a client can match it (JSON-RPC 2.0, section 5.1)', async function () {
    api = await startReadApiUnderTest();
    const call = toolCall('get_status', {}, 9);
    const cases: { what: string; message: unknown; says: string; id: string | number | null }[] = [
      { what: 'a number', message: 42, says: 'a JSON-RPC message is an object', id: null },
      { what: 'null', message: null, says: 'a JSON-RPC message is an object', id: null },
      { what: 'no jsonrpc', message: { ...call, jsonrpc: undefined }, says: 'jsonrpc must be "2.0"', id: 9 },
      { what: 'jsonrpc 1.0', message: { ...call, jsonrpc: '1.0', id: 'call-1' }, says: 'jsonrpc must be "2.0"', id: 'call-1' },
      { what: 'an object id', message: { ...call, id: { n: 1 } }, says: 'id must be a string or an integer', id: null },
      { what: 'a fraction id', message: { ...call, id: 1.5 }, says: 'id must be a string or an integer', id: null },
      { what: 'a method that is no string', message: { ...call, method: 7 }, says: 'method must be a string', id: 9 },
      { what: 'no method, no result', message: { jsonrpc: '2.0', id: 9 }, says: 'not a request, a notification or a response', id: 9 },
      { what: 'params of an unknown method that are no object', message: { jsonrpc: '2.0', id: 9, method: 'x/y', params: [1] }, says: 'params must be an object', id: 9 },
      { what: 'params alone', message: { jsonrpc: '2.0', params: {} }, says: 'not a request, a notification or a response', id: null },
      { what: 'a result that is no object', message: { jsonrpc: '2.0', id: 9, result: 5 }, says: 'not a request, a notification or a response', id: 9 },
    ];
    for (const { what, message, says, id } of cases) {
      const answer = await postMcp(api.url, JSON.stringify(message));
      expect(answer.status, what).to.equal(400);
      expect(answer.json(), what).to.deep.equal({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${says}` }, id });
    }
    // A message that is one stays the transport's: its answer, its id.
    const answered = await postMcp(api.url, call);
    expect(answered.json<{ id: unknown; result?: unknown }>()).to.include({ id: 9 }).and.to.have.property('result');
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('answers params that are not the method\'s with JSON-RPC -32602 saying in words what is wrong, to the request\'s id', async function () {
    api = await startReadApiUnderTest();
    const cases = [
      { params: { name: 'get_status', arguments: 'lang=fr' }, method: 'tools/call', says: 'params.arguments must be an object' },
      { params: { name: 'get_watch', arguments: ['RG-100'] }, method: 'tools/call', says: 'params.arguments must be an object' },
      { params: { arguments: {} }, method: 'tools/call', says: 'params.name is required' },
      { params: 'get_status', method: 'tools/call', says: 'params must be an object' },
      { params: { uri: 42 }, method: 'resources/read', says: 'params.uri must be a string' },
    ];
    for (const [index, { params, method, says }] of cases.entries()) {
      const what = `${method} ${JSON.stringify(params)}`;
      const answer = await postMcp(api.url, { jsonrpc: '2.0', id: `call-${index}`, method, params });
      expect(answer.status, what).to.equal(200);
      const { error, id } = answer.json<{ id: unknown; error: { code: number; message: string } }>();
      expect(id, what).to.equal(`call-${index}`);
      expect(error.code, what).to.equal(-32602);
      expect(error.message, what).to.include(says);
      expect(error.message, what).not.to.match(/[[{]/);
    }
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('answers huge and deep arguments inside the body limit with a result, and a body above 16 KiB with the usual 413', async function () {
    api = await startReadApiUnderTest();
    const huge = await postMcp(api.url, toolCall('search_catalogue', { search: 'x'.repeat(15_000) }));
    expect(huge.status).to.equal(200);
    const hugeResult = huge.json().result;
    expect(hugeResult.isError).to.equal(true);
    expect(JSON.parse(hugeResult.content[0].text).detail[0]).to.include({ type: 'string_too_long' });

    const nested = `${'['.repeat(7000)}${']'.repeat(7000)}`;
    const deep = await postMcp(api.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"verify_serial","arguments":{"serial":${nested}}}}`);
    expect(deep.status).to.equal(200);
    const deepResult = deep.json().result;
    expect(deepResult.isError).to.equal(true);
    expect(JSON.parse(deepResult.content[0].text).detail[0]).to.include({ type: 'string_type' });
    expect(deepResult.content[0].text).to.include('[truncated]');

    const tooLarge = await postMcp(api.url, toolCall('search_catalogue', { search: 'x'.repeat(17 * 1024) }));
    expect(tooLarge.status).to.equal(413);
    expect(tooLarge.json()).to.deep.equal({ detail: 'Request body too large' });
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('answers arguments nested too deep to serialize again to a tool whose answers are kept, without a 5xx', async function () {
    // JSON.parse reads 7000 levels that JSON.stringify cannot write back: the key of the answer cache overflowed the stack.
    api = await startReadApiUnderTest();
    const nested = `${'['.repeat(7000)}${']'.repeat(7000)}`;
    const call = (name: string, args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;
    const refused = await postMcp(api.url, call('search_catalogue', `{"search":${nested}}`));
    expect(refused.status, refused.text).to.equal(200);
    expect(refused.json().result.isError).to.equal(true);
    expect(JSON.parse(refused.json().result.content[0].text).detail[0]).to.include({ type: 'string_type' });
    const ignored = await postMcp(api.url, call('list_collections', `{"padding":${nested}}`));
    expect(ignored.status, ignored.text).to.equal(200);
    expect(ignored.json().result.structuredContent.collections).to.be.an('array');
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('counts every call, resource read and refused message against the general per-IP limit, together with the HTTP operations', async function () {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '4' } });
    const first = await postMcp(api.url, toolCall('list_collections', {}));
    expect(first.status).to.equal(200);
    for (const name of RATE_HEADERS) expect(first.headers, name).to.have.property(name);
    expect(first.headers['x-ratelimit-limit']).to.equal('4');
    expect(first.headers['x-ratelimit-remaining']).to.equal('3');
    // A refused message counts too, whatever its answer; a batch is no housekeeping, even of pings.
    expect((await postMcp(api.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }])).status).to.equal(400);
    const read = await postMcp(api.url, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: '/llms-full.txt' } });
    expect(read.headers['x-ratelimit-remaining'], 'a resource read is no housekeeping').to.equal('1');
    expect((await send(api.url, '/api/public/collections')).status).to.equal(200);
    expectMcpRefused(await postMcp(api.url, toolCall('list_collections', {}, 'fifth')), 4, 'fifth', 'fifth request, over MCP');
    expectRefused(await send(api.url, '/api/public/collections'), 4, 'sixth request, over HTTP');
    // Another client has its own count.
    expect((await postMcp(api.url, toolCall('list_collections', {}), { localAddress: '127.0.0.2' })).status).to.equal(200);
  });

  it('counts a verify_serial call against the per-IP verification limit as GET /api/public/verify does, and only that tool', async function () {
    api = await startReadApiUnderTest({ env: { VERIFY_RATE_LIMIT_PER_MINUTE: '2' } });
    const first = await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0001' }));
    expect(first.status).to.equal(200);
    expect(first.headers['x-ratelimit-limit'], 'verification answers carry the verification limit').to.equal('2');
    expect(first.headers['x-ratelimit-remaining']).to.equal('1');
    // An invalid serial costs a verification too, as over HTTP, where the limit stands before validation.
    expect((await send(api.url, '/api/public/verify/no!')).status).to.equal(422);
    expectMcpRefused(await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0001' }, 3)), 2, 3, 'third verification, over MCP');
    expectRefused(await send(api.url, '/api/public/verify/AUR-0001'), 2, 'fourth verification, over HTTP');
    const other = await postMcp(api.url, toolCall('get_watch', { reference: 'RG-100' }));
    expect(other.status, 'other tools are not verifications').to.equal(200);
    expect(other.json().result.structuredContent.reference).to.equal('RG-100');
  });

  it('counts against the verification limit only a tools/call of verify_serial, not another method that names it', async function () {
    api = await startReadApiUnderTest({ env: { VERIFY_RATE_LIMIT_PER_MINUTE: '1' } });
    for (const method of ['tools/list', 'resources/list']) {
      const answer = await postMcp(api.url, { jsonrpc: '2.0', id: method, method, params: { name: 'verify_serial' } });
      expect(answer.status, method).to.not.equal(429);
      expect(answer.headers['x-ratelimit-limit'], `${method}: the general limit's figures`).to.not.equal('1');
    }
    const verification = await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0001' }));
    expect(verification.status, 'the one verification allowed is still there').to.equal(200);
    expect(verification.headers['x-ratelimit-remaining']).to.equal('0');
  });

  it('answers statelessly with the headers the chain gives every POST answer: no session id, nothing of the transport\'s own', async function () {
    api = await startReadApiUnderTest();
    // The other POST of the public port, whose answer went through the same chain: its header names are all an MCP
    // answer may carry (a tool call's says where its data stands too, docs/api.md "Read your writes").
    const price = await send(api.url, '/api/public/configurator/price', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ collection: 'regate', model_ref: 'RG-100' }),
    });
    expect(price.status).to.equal(200);
    const chain = Object.keys(price.headers);
    const answers = [
      await postMcp(api.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
      await postMcp(api.url, toolCall('get_watch', { reference: 'RG-100' })),
      // The second, answered from the MCP answer cache.
      await postMcp(api.url, toolCall('get_watch', { reference: 'RG-100' })),
      await postMcp(api.url, { jsonrpc: '2.0', method: 'notifications/initialized' }),
    ];
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, `answer ${index}`).to.be.oneOf([200, 202]);
      expect(answer.headers, `answer ${index}`).not.to.have.property('mcp-session-id');
      expect(Object.keys(answer.headers).filter((name) => !chain.includes(name)), `answer ${index}: headers no other answer has`).to.deep.equal([]);
      const toolCall = index === 1 || index === 2;
      expect(answer.headers['x-read-model-position'], `answer ${index}: where a tool call's data stands`).to.equal(toolCall ? price.headers['x-read-model-position'] : undefined);
    }
  });

  it('answers a notification 202 with no body and no content type', async function () {
    api = await startReadApiUnderTest();
    const answer = await postMcp(api.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(answer.status).to.equal(202);
    expect(answer.text).to.equal('');
    expect(answer.headers['content-type']).to.equal(undefined);
  });

  it('counts verify_serial calls from every client against the global verification budget', async function () {
    api = await startReadApiUnderTest({ env: { VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '2' } });
    expect((await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0001' }), { localAddress: '127.0.0.2' })).status).to.equal(200);
    expect((await send(api.url, '/api/public/verify/AUR-0001', { localAddress: '127.0.0.3' })).status).to.equal(200);
    expectMcpRefused(await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0666' }), { localAddress: '127.0.0.4' }), 2, 1, 'a third client');
  });

  it('signs an MCP answer on request, verifiable over the contract components with the key of the JWK Set', async function () {
    api = await startReadApiUnderTest();
    const answer = await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-0666', lang: 'fr' }), {
      headers: { 'accept-signature': 'sig1=("@status" "content-digest");alg="ed25519"' },
    });
    expect(answer.status).to.equal(200);
    expect(answer.json().result.structuredContent.verification_status).to.equal('STOLEN');
    expect(answer.headers['content-digest']).to.equal(contentDigest(answer.text));
    const input = readSignatureInput(String(answer.headers['signature-input']));
    expect(input.identifiers).to.include.members(['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req']);
    const values: Record<string, string> = {
      '"@status"': '200', '"@method";req': 'POST', '"@path";req': '/mcp', '"@query";req': '?', '"@authority";req': new URL(api.url).host,
    };
    for (const identifier of input.identifiers) {
      const name = JSON.parse(identifier.split(';')[0]!) as string;
      if (!name.startsWith('@')) values[identifier] = String(answer.headers[name]);
    }
    const [key] = (await send(api.url, '/.well-known/jwks.json')).json<{ keys: { x: string }[] }>().keys;
    const base = signatureBase(input.identifiers, values, input.params);
    expect(verifyBase(base, signatureBytes(String(answer.headers['signature']), input.label), publicKeyFromX(key!.x)), base).to.equal(true);
  });

  it('answers a tool whose read store fails with a JSON-RPC internal error that names nothing internal, and logs the failure', async function () {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    store.get = () => Promise.reject(new Error('connect ECONNREFUSED mongodb://admin:secret@db-7.internal'));
    api = await startReadApiUnderTest({ readStore: readsThrough(store) });
    const answer = await postMcp(api.url, toolCall('get_watch', { reference: 'RG-100' }));
    expect(answer.status).to.equal(200);
    // The SDK writes an McpError's message as `MCP error CODE: message`.
    expect(answer.json().error).to.deep.equal({ code: -32603, message: 'MCP error -32603: Internal error' });
    expect(answer.text).not.to.include('secret');
    expect(api.errors().map((line) => line.msg)).to.deep.equal(['MCP tool call failed']);
    // The operator's line names the tool and keeps the store's own error, which the client never sees.
    const [logged] = api.errors();
    expect(logged).to.include({ tool: 'get_watch' });
    expect((logged!['err'] as { message?: string } | undefined)?.message).to.include('ECONNREFUSED');
  });

  it('is counted by the request metrics under its own route', async function () {
    api = await startReadApiUnderTest();
    await postMcp(api.url, toolCall('get_status', {}));
    const metrics = await send(api.opsUrl, '/metrics');
    expect(metrics.text).to.match(/http_requests_total\{[^}]*route="\/mcp"[^}]*status="200"[^}]*\} 1/);
  });
});
