/**
 * The MCP SDK's modules, loaded on first use and kept (read-api/mcp/mcp-sdk.ts): every per-request server is handed
 * the same SDK, so its one schema validator (and what it compiled) serves every request instead of one per request.
 */
import { expect } from 'chai';
import { mcpSdk } from '../../../read-api/mcp/mcp-sdk.ts';

describe('MCP SDK, loaded once', () => {
  it('hands every caller the same SDK and the same validator, however many ask, at once or later', async () => {
    const [first, second] = await Promise.all([mcpSdk(), mcpSdk()]);
    const later = await mcpSdk();
    expect(second).to.equal(first);
    expect(later).to.equal(first);
    expect(later.validator).to.equal(first.validator);
    expect(first.Server).to.be.a('function');
    expect(first.WebStandardStreamableHTTPServerTransport).to.be.a('function');
  });
});
