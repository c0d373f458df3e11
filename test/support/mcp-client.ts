/**
 * MCP from a client's side, for tests: the SDK's own `Client` over its Streamable HTTP transport, raw JSON-RPC
 * POSTs to `/mcp` for what a well-behaved client never sends, and what a refused one must be answered.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { send, type TestRequest, type TestResponse } from './http.ts';

/** `fetch`: what the transport sends its requests with (to see the HTTP answers an SDK call got). */
export async function connectedClient(baseUrl: string, fetch?: typeof globalThis.fetch): Promise<Client> {
  const client = new Client({ name: 'watchcat-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), fetch ? { fetch } : {}));
  return client;
}

/** The headers a Streamable HTTP client sends with every POST. */
export const MCP_HEADERS: Record<string, string> = {
  'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
};

/** POSTs `body` (a string is sent as it is) to `/mcp`. */
export function postMcp(baseUrl: string, body: unknown, options: TestRequest = {}): Promise<TestResponse> {
  return send(baseUrl, '/mcp', {
    ...options,
    method: 'POST',
    headers: { ...MCP_HEADERS, ...options.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A `tools/call` JSON-RPC request. */
export const toolCall = (name: string, args: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args },
});

/**
 * A request to `/mcp` refused by a limit (docs/api.md, "Agents over MCP"): 429 with the limit's figures and
 * `Retry-After` within the window, its body a JSON-RPC error to the request's id (-32029) whose message and `data`
 * give the usual detail and the header's retry time; the usual `{detail}` member is kept beside them.
 */
export function expectMcpRefused(answer: TestResponse, max: number, id: string | number | null, what: string): void {
  expect(answer.status, what).to.equal(429);
  expect(answer.headers['x-ratelimit-limit'], what).to.equal(String(max));
  expect(answer.headers['x-ratelimit-remaining'], what).to.equal('0');
  expect(answer.headers['content-type'], what).to.match(/^application\/json\b/);
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter, what).to.be.within(1, 60);
  const detail = `Rate limit exceeded: ${max} per 1 minute`;
  // The contract's `detail` stays at the top, beside the JSON-RPC members, for clients that read the usual body.
  expect(answer.json(), what).to.deep.equal({
    jsonrpc: '2.0', id, error: { code: -32029, message: `${detail}; retry after ${retryAfter} s`, data: { detail, retry_after: retryAfter } }, detail,
  });
}
