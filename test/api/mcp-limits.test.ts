/**
 * MCP under the rate limits (docs/api.md, "Agents over MCP", "Rate limits"; issue 44, item 3): protocol housekeeping
 * (initialize, notifications, ping, the lists, the server/discover probe, GET and OPTIONS) counts against the files
 * limit and none of it against the general one, so a session's handshake costs none of a client's calls; calls
 * count fully; a refusal keeps HTTP 429 and `Retry-After`, its body a JSON-RPC error with the retry time, which the
 * SDK's own `Client` hands the caller. The official Go SDK's view of the same: test/interop/mcp-go-sdk.test.ts.
 */
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { send } from '../support/http.ts';
import { connectedClient, expectMcpRefused, MCP_HEADERS, postMcp, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

/** One HTTP exchange of an SDK client: what it asked (JSON-RPC method, or the HTTP one) and the answer's headers. */
interface Exchange {
  asked: string;
  status: number;
  limit: string | null;
  retryAfter: string | null;
}

/** A `fetch` that records every exchange, for a client whose SDK does not show the HTTP answer. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { method?: string } : undefined;
    exchanges.push({
      asked: body?.method ?? init?.method ?? 'GET', status: response.status,
      limit: response.headers.get('x-ratelimit-limit'), retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
}

const GENERAL = 2;
const FILES = 40;

describe('MCP under the rate limits: housekeeping apart, refusals in JSON-RPC', function () {
  this.timeout(20_000);
  let api: ReadApiUnderTest | undefined;
  const clients: Client[] = [];
  afterEach(async function () {
    for (const client of clients.splice(0)) await client.close();
    await api?.close();
    api = undefined;
  });

  it('lets the SDK Client connect, list and ping at no cost to the general limit, and hands it the retry time of a refused call', async function () {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: String(GENERAL), FILE_RATE_LIMIT_PER_MINUTE: String(FILES) } });
    const exchanges: Exchange[] = [];
    const client = await connectedClient(api.url, recordingFetch(exchanges));
    clients.push(client);
    expect((await client.listTools()).tools).to.have.length(7);
    expect((await client.listResources()).resources).to.have.length(2);
    expect(await client.listResourceTemplates(), 'resources/templates/list is answered').to.deep.equal({ resourceTemplates: [] });
    await client.ping();
    const housekeeping = exchanges.splice(0);
    expect(housekeeping.map(({ asked }) => asked)).to.include.members(['initialize', 'notifications/initialized', 'GET', 'tools/list', 'ping']);
    for (const { asked, limit } of housekeeping) expect(limit, `${asked}: counted against the files limit`).to.equal(String(FILES));

    for (let call = 1; call <= GENERAL; call++) {
      const result = await client.callTool({ name: 'list_collections', arguments: {} });
      expect(result.isError, `call ${call} of the ${GENERAL} a minute`).to.equal(undefined);
    }
    const refusal = await client.callTool({ name: 'list_collections', arguments: {} }).then(() => undefined, (error: unknown) => error);
    expect(refusal).to.be.instanceOf(StreamableHTTPError);
    expect((refusal as StreamableHTTPError).code).to.equal(429);
    // The SDK quotes the answer's body after its own words: the JSON-RPC error, its data the retry time.
    const quoted = /^Streamable HTTP error: Error POSTing to endpoint: (\{.*\})$/.exec((refusal as Error).message);
    expect(quoted, (refusal as Error).message).to.not.equal(null);
    const { error } = JSON.parse(quoted![1]!) as { error: { code: number; message: string; data: { retry_after: number } } };
    const answered = exchanges.at(-1)!;
    expect(answered).to.include({ asked: 'tools/call', status: 429, limit: String(GENERAL) });
    expect(error.code).to.equal(-32029);
    expect(error.data.retry_after, 'the Retry-After of the same answer').to.equal(Number(answered.retryAfter));
    expect(error.message).to.match(new RegExp(`retry after ${answered.retryAfter} s$`));

    // Refused calls leave the session whole: housekeeping is still answered, and another session opens.
    await client.ping();
    expect((await client.listTools()).tools).to.have.length(7);
    const another = await connectedClient(api.url);
    clients.push(another);
    expect((await another.listResources()).resources).to.have.length(2);
  });

  it('counts every message of a handshake against the files limit only, and refuses one past it in JSON-RPC too', async function () {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '1', FILE_RATE_LIMIT_PER_MINUTE: '8' } });
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    const handshake = [
      // The Go SDK's first probe: a method and a protocol version this SDK does not know (400).
      () => postMcp(api!.url, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} }, { headers: { 'mcp-protocol-version': '2026-07-28' } }),
      () => postMcp(api!.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize }),
      () => postMcp(api!.url, { jsonrpc: '2.0', method: 'notifications/initialized' }),
      () => send(api!.url, '/mcp', { headers: { accept: 'text/event-stream' } }),
      () => send(api!.url, '/mcp', { method: 'OPTIONS', headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' } }),
      () => postMcp(api!.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      () => postMcp(api!.url, { jsonrpc: '2.0', id: 3, method: 'resources/templates/list' }),
      // Not offered (-32601), and housekeeping all the same.
      () => postMcp(api!.url, { jsonrpc: '2.0', id: 4, method: 'prompts/list' }),
    ];
    const statuses = [];
    for (const [index, request] of handshake.entries()) {
      const answer = await request();
      statuses.push(answer.status);
      expect(answer.headers['x-ratelimit-limit'], `message ${index}`).to.equal('8');
      expect(answer.headers['x-ratelimit-remaining'], `message ${index}`).to.equal(String(7 - index));
    }
    expect(statuses).to.deep.equal([400, 200, 202, 405, 204, 200, 200, 200]);
    expectMcpRefused(await postMcp(api.url, { jsonrpc: '2.0', id: 'ninth', method: 'ping' }), 8, 'ninth', 'housekeeping past the files limit');
    expectMcpRefused(await send(api.url, '/mcp'), 8, null, 'a GET past the files limit');

    // The general limit is untouched: its one call a minute is still there, then refused, with the call's id.
    const call = await postMcp(api.url, toolCall('get_status', {}));
    expect(call.status).to.equal(200);
    expect(call.headers['x-ratelimit-remaining']).to.equal('0');
    expectMcpRefused(await postMcp(api.url, toolCall('get_status', {}, 'again')), 1, 'again', 'the second call');
  });

  it('counts as calls a housekeeping message asking for a signature, and one whose body is too large to read', async function () {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const signed = await postMcp(api.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { ...MCP_HEADERS, 'accept-signature': 'sig1=("@status");alg="ed25519"' } });
    expect(signed.status).to.equal(200);
    expect(signed.headers['x-ratelimit-limit'], 'signing is work').to.equal('2');
    const huge = { jsonrpc: '2.0', id: 2, method: 'initialize', params: { padding: 'x'.repeat(17 * 1024) } };
    expect((await postMcp(api.url, huge)).status).to.equal(413);
    expectMcpRefused(await postMcp(api.url, toolCall('get_status', {}, 3)), 2, 3, 'the third counted request');
  });

  it('runs no body that the limits read one way and the transport another (a byte order mark)', async function () {
    // JSON.parse refuses a leading U+FEFF where the SDK's TextDecoder drops it: a body the limits could not read went
    // to the transport, which ran it, a batch of verifications included, past the batch refusal and the verification limits.
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '100', VERIFY_RATE_LIMIT_PER_MINUTE: '2' } });
    const BOM = '\uFEFF';
    const batch = [1, 2, 3, 4].map((id) => toolCall('verify_serial', { serial: `AUR-000${id}` }, id));
    const answers = [await postMcp(api.url, BOM + JSON.stringify(batch))];
    for (const id of [5, 6, 7]) answers.push(await postMcp(api.url, BOM + JSON.stringify(toolCall('verify_serial', { serial: 'AUR-0666' }, id))));
    for (const answer of answers) {
      expect(answer.text, 'no verification answered').not.to.include('verification_status');
      expect(answer.status).to.equal(400);
      expect(answer.json().error.code).to.equal(-32700);
    }
  });
});
