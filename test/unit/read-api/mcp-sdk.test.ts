/**
 * The MCP SDK's modules, loaded on first use and kept (read-api/mcp/mcp-sdk.ts): every per-request server is handed
 * the same SDK, so its one schema validator (and what it compiled) serves every request instead of one per request.
 */
import { expect } from 'chai';
import { keptOnceLoaded, loadMcpSdk, mcpSdk } from '../../../read-api/mcp/mcp-sdk.ts';

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

describe('the MCP SDK\'s load', () => {
  // Run here, not only through mcpSdk: the process keeps the first load, so a change to the load would otherwise go
  // unseen by every test after it.
  it('gives the server, the web-standard transport, the request schemas and a schema validator', async () => {
    const sdk = await loadMcpSdk();
    expect(sdk.Server).to.be.a('function');
    expect(sdk.Server.name).to.equal('Server');
    expect(sdk.WebStandardStreamableHTTPServerTransport.name).to.equal('WebStandardStreamableHTTPServerTransport');
    for (const schema of ['InitializeRequestSchema', 'ListToolsRequestSchema', 'CallToolRequestSchema', 'ListResourcesRequestSchema', 'ReadResourceRequestSchema'] as const) {
      expect(sdk.types[schema], schema).to.have.property('safeParse').that.is.a('function');
    }
    const isCount = sdk.validator.getValidator({ type: 'integer', minimum: 0 });
    expect(isCount(3).valid).to.equal(true);
    expect(isCount('3').valid).to.equal(false);
  });
});

describe('a load kept once it succeeds', () => {
  it('runs the load once for every caller, at once or later, while it succeeds', async () => {
    let loads = 0;
    const kept = keptOnceLoaded(async () => ({ load: ++loads }));
    const [first, second] = await Promise.all([kept(), kept()]);
    expect(await kept()).to.equal(first);
    expect(second).to.equal(first);
    expect(loads).to.equal(1);
  });

  it('tries a failed load again at the next call, and keeps the load that succeeds', async () => {
    let loads = 0;
    const kept = keptOnceLoaded(async () => {
      loads += 1;
      if (loads === 1) throw new Error('EMFILE: too many open files');
      return { load: loads };
    });
    // The callers of the failing load all get its failure.
    const failures = await Promise.all([kept(), kept()].map((loading) => loading.then(() => undefined, (error: unknown) => (error as Error).message)));
    expect(failures).to.deep.equal(['EMFILE: too many open files', 'EMFILE: too many open files']);
    const loaded = await kept();
    expect(loaded).to.deep.equal({ load: 2 });
    expect(await kept()).to.equal(loaded);
    expect(loads).to.equal(2);
  });
});
