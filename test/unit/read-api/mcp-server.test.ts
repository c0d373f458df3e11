/**
 * The MCP server of one request (read-api/mcp/mcp-server.ts), built inside each test and reached by the SDK's own
 * `Client` over its in-memory transport: which resource URIs it serves, and what it answers for a resource or a
 * tool it does not have (MCP's "Resource not found", -32002, and JSON-RPC's invalid params, -32602).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { pino } from 'pino';
import { mcpSdk } from '../../../read-api/mcp/mcp-sdk.ts';
import { createMcpServer, mcpServerKit } from '../../../read-api/mcp/mcp-server.ts';
import type { ReadingEnv } from '../../../shared/read-model/public-api/answer-policy.ts';

async function connected(base: string): Promise<Client> {
  const sdk = await mcpSdk();
  const kit = mcpServerKit({
    tools: new Map(), env: { brand: { name: 'Watchcat' } } as unknown as ReadingEnv, logger: pino({ level: 'silent' }), instructions: 'none',
    resources: [{ path: '/llms-full.txt', name: 'llms-full.txt', title: 'Reference', description: 'All of it', mimeType: 'text/plain', text: (at) => `served at ${at}` }],
  });
  const server = createMcpServer(sdk, kit, base);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as { code: number; message: string; data?: unknown });

describe('MCP server of one request', () => {
  it('serves a resource under any http(s) URI of its path, and lists it under the base', async () => {
    const client = await connected('https://shop.example');
    try {
      expect((await client.listResources()).resources.map((resource) => resource.uri)).to.deep.equal(['https://shop.example/llms-full.txt']);
      for (const uri of ['https://shop.example/llms-full.txt', 'http://127.0.0.1:8080/llms-full.txt', '/llms-full.txt']) {
        expect((await client.readResource({ uri })).contents, uri).to.deep.equal([
          { uri: 'https://shop.example/llms-full.txt', mimeType: 'text/plain', text: 'served at https://shop.example' },
        ]);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses a URI of another scheme with the same path, an unknown path, and no URL at all, as "Resource not found" echoing the URI cut short', async () => {
    const client = await connected('https://shop.example');
    try {
      // The last is no URL at all (an IPv6 host never closed).
      for (const uri of ['file:///llms-full.txt', 'ftp://shop.example/llms-full.txt', 'https://shop.example/nothing', 'http://[shop.example/llms-full.txt']) {
        const refused = await failure(client.readResource({ uri }));
        expect(refused?.code, uri).to.equal(-32002);
        expect(refused?.message, uri).to.include('Resource not found');
        expect(refused?.data, uri).to.deep.equal({ uri });
      }
      const long = `https://shop.example/${'x'.repeat(5_000)}`;
      const echoed = ((await failure(client.readResource({ uri: long })))?.data as { uri: string }).uri;
      expect(long.startsWith(echoed) && echoed.length < 1_000, 'a prefix of the URI, short').to.equal(true);
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown tool as invalid params, naming it cut short', async () => {
    const client = await connected('https://shop.example');
    try {
      const refused = await failure(client.callTool({ name: 'nope' }));
      expect(refused?.code).to.equal(-32602);
      expect(refused?.message).to.include('Unknown tool: nope');
      const long = await failure(client.callTool({ name: 'n'.repeat(5_000) }));
      expect(long?.code).to.equal(-32602);
      expect(long?.message.length).to.be.below(1_000);
      expect(long?.message).to.include('Unknown tool: nnn');
    } finally {
      await client.close();
    }
  });
});
