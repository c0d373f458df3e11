/**
 * MCP from a client's side, for tests: the SDK's own `Client` over its Streamable HTTP transport, and raw JSON-RPC
 * POSTs to `/mcp` for what a well-behaved client never sends.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { send, type TestRequest, type TestResponse } from './http.ts';

export async function connectedClient(baseUrl: string): Promise<Client> {
  const client = new Client({ name: 'watchcat-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
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
