/**
 * Params checked before the MCP transport (read-api/mcp/mcp-params.ts): which messages it looks at, and what its
 * -32602 message says. The issues come from the SDK's own zod schemas (a library apart from the service); the
 * wording around them ("is required", "must be an object") is the one `test/api/mcp-transport.test.ts` checks over
 * HTTP, and the bounds on what a client's text may make the message echo are checked as bounds.
 */
import { expect } from 'chai';
import { invalidParams } from '../../../read-api/mcp/mcp-params.ts';
import { mcpSdk, type McpSdk } from '../../../read-api/mcp/mcp-sdk.ts';

describe('MCP params checked before the transport', () => {
  let sdk: McpSdk;
  beforeEach(async () => { sdk = await mcpSdk(); });
  const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params, ...extra });

  it('leaves alone what is not a request of a method this server handles, and requests whose params are right', () => {
    for (const message of [
      undefined, [], 'tools/call', { ...call({}), jsonrpc: '1.0' }, { ...call({}), id: null }, { ...call({}), id: { n: 1 } },
      { ...call({}), method: 7 }, { ...call({}), method: 'ping' }, { ...call({}), method: '__proto__' },
      call({ name: 'get_status', arguments: { lang: 'fr' } }), call({ name: 'get_status' }),
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' }, { jsonrpc: '2.0', id: 'a', method: 'resources/read', params: { uri: 'x' } },
    ]) {
      expect(invalidParams(sdk, message), JSON.stringify(message)).to.equal(undefined);
    }
  });

  it('says an item of a list that is there but of the wrong type must be of its type, not that it is required', () => {
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1', icons: [5] } };
    expect(invalidParams(sdk, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })?.message)
      .to.equal('Invalid params for initialize: params.clientInfo.icons.0 must be an object');
  });

  it('answers to the request\'s id, string or number, naming the method', () => {
    expect(invalidParams(sdk, call('x'))).to.deep.equal({ id: 7, message: 'Invalid params for tools/call: params must be an object' });
    expect(invalidParams(sdk, { ...call('x'), id: 'seven' })?.id).to.equal('seven');
  });

  it('says each field missing, and each of the wrong type by what it must be', () => {
    expect(invalidParams(sdk, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })?.message)
      .to.equal('Invalid params for initialize: params.protocolVersion is required; params.capabilities is required; params.clientInfo is required');
    expect(invalidParams(sdk, call({ name: 5, arguments: [] }))?.message)
      .to.equal('Invalid params for tools/call: params.name must be a string; params.arguments must be an object');
    expect(invalidParams(sdk, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } })?.message)
      .to.equal('Invalid params for tools/list: params.cursor must be a string');
    expect(invalidParams(sdk, { jsonrpc: '2.0', id: 1, method: 'resources/list', params: { cursor: 5 } })?.message)
      .to.equal('Invalid params for resources/list: params.cursor must be a string');
    expect(invalidParams(sdk, { jsonrpc: '2.0', id: 1, method: 'resources/templates/list', params: { cursor: 5 } })?.message)
      .to.equal('Invalid params for resources/templates/list: params.cursor must be a string');
  });

  it('names a few problems and counts the rest, and cuts a long key the client chose, so its message stays short', () => {
    // Ten problems: the protocol version, seven experimental capabilities that are not objects, the client's name
    // and version.
    const experimental = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`x${i}`, i]));
    const many = invalidParams(sdk, {
      jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, capabilities: { experimental }, clientInfo: { name: 1, version: 1 } },
    })!.message;
    const named = many.slice(many.indexOf(': ') + 2).split('; ');
    const rest = /^and (\d+) more$/.exec(named.pop()!);
    expect(rest, many).to.not.equal(null);
    expect(named.length, 'named').to.be.within(1, 9);
    expect(named.length + Number(rest![1]), 'named and counted: every problem').to.equal(10);
    const long = 'k'.repeat(10_000);
    const keyed = invalidParams(sdk, {
      jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1', capabilities: { experimental: { [long]: 1 } }, clientInfo: { name: 'a', version: 'b' } },
    })!.message;
    expect(keyed).to.match(/^Invalid params for initialize: params\.capabilities\.experimental\.k+: /);
    expect(keyed.length, 'a 10,000-character key cut').to.be.below(400);
  });

  it('accounts for every problem, named or counted, and never counts none more', () => {
    for (let problems = 1; problems <= 9; problems += 1) {
      // As many experimental capabilities that are not objects: one problem each.
      const experimental = Object.fromEntries(Array.from({ length: problems }, (_, i) => [`x${i}`, i]));
      const message = invalidParams(sdk, {
        jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1', capabilities: { experimental }, clientInfo: { name: 'a', version: 'b' } },
      })!.message;
      const named = message.slice(message.indexOf(': ') + 2).split('; ');
      const rest = /^and (\d+) more$/.exec(named.at(-1)!);
      if (rest) named.pop();
      expect(message, `${problems} problems`).to.not.include('and 0 more');
      expect(named.length + Number(rest?.[1] ?? 0), `${problems} problems`).to.equal(problems);
    }
  });
});
