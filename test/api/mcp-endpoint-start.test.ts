/**
 * What the `/mcp` endpoint is given when the read API starts (read-api/mcp/mcp-endpoint.ts): its resources and the
 * instructions an agent reads first. The test starts its own read API, so that this start-up runs inside it (the
 * mutation tester attributes code run in a `before` hook to one test only; `test/api/mcp-tools.test.ts` checks the
 * same over one shared API). Expected values: docs/api.md ("Agents over MCP": read-only tools, the verification
 * limits, resources llms-full.txt and the OpenAPI document) and the discovery files as the API serves them.
 */
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { connectedClient } from '../support/mcp-client.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';

describe('the MCP endpoint as the read API starts it', function () {
  this.timeout(20_000);

  it('tells the agent what the tools are and their limits, and serves the two discovery files as described resources', async () => {
    const api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '1234567', VERIFY_RATE_LIMIT_PER_MINUTE: '7654321' } });
    const client = await connectedClient(api.url);
    try {
      const instructions = client.getInstructions() ?? '';
      expect(instructions).to.match(/^Read-only tools over the public catalogue of /);
      expect(instructions).to.include('serial-number verification').and.include('`lang`').and.include('JSON');
      expect(instructions).to.include('1234567 requests per minute per client IP').and.include('`verify_serial` also against 7654321 verifications per minute');
      expect(instructions, 'one text, its parts joined by spaces').to.include('in EUR and serial-number').and.include('client IP; `verify_serial`');
      const { resources } = await client.listResources();
      expect(resources.map(({ name, mimeType }) => ({ name, mimeType }))).to.deep.equal([
        { name: 'llms-full.txt', mimeType: 'text/plain' }, { name: 'openapi-public.json', mimeType: 'application/json' },
      ]);
      for (const resource of resources) {
        expect(resource.title, resource.name).to.be.a('string').and.not.equal('');
        expect(resource.description, resource.name).to.be.a('string').and.not.equal('');
        const path = new URL(resource.uri).pathname;
        const served = await send(api.url, path);
        expect(served.status, path).to.equal(200);
        for (let read = 0; read < 2; read += 1) {
          const { contents } = await client.readResource({ uri: resource.uri });
          expect((contents[0] as { text: string }).text, `${path}, read ${read + 1}`).to.equal(served.text);
        }
      }
      expect(resources.map((resource) => new URL(resource.uri).pathname)).to.deep.equal(['/llms-full.txt', '/.well-known/openapi-public.json']);
    } finally {
      await client.close();
      await api.close();
    }
  });
});
