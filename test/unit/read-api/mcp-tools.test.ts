/**
 * The MCP tools and the MCP section of llms-full.txt, built inside each test (the API tests build them in a `before`
 * hook, which the mutation tester attributes to one test only). Tool names, operations and required parameters are
 * docs/api.md's ("Agents over MCP", "The seven operations"), as `test/api/mcp-tools.test.ts` writes them; the
 * section's facts are the contract's and the configuration's given here.
 */
import { expect } from 'chai';
import { mcpReferenceSection } from '../../../read-api/mcp/mcp-reference.ts';
import { mcpTools } from '../../../read-api/mcp/mcp-tools.ts';
import { publicOperationHandlers, publicOperations } from '../../../shared/read-model/public-api/operations/index.ts';
import { CONTRACT_TOOLS } from '../../support/contract-tools.ts';


describe('MCP tools and their reference, as built', () => {
  it('makes one read-only tool per operation, its input the operation\'s parameters with the required ones required', () => {
    const tools = mcpTools(publicOperationHandlers);
    expect([...tools.keys()]).to.have.members(Object.keys(CONTRACT_TOOLS));
    for (const [name, tool] of tools) {
      const { params } = CONTRACT_TOOLS[name]!;
      const { inputSchema, annotations } = tool.description;
      expect(inputSchema.type, name).to.equal('object');
      expect(Object.keys(inputSchema.properties ?? {}), name).to.have.members(params.map((p) => p.replace('*', '')));
      expect(inputSchema.required ?? [], name).to.have.members(params.filter((p) => p.startsWith('*')).map((p) => p.slice(1)));
      // Read-only (docs/api.md), so a call again with the same arguments changes nothing (idempotent), and no tool
      // reaches beyond this service (closed world): MCP's hints as its specification defines them.
      expect(annotations, name).to.include({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(`${tool.operation.spec.method} ${tool.operation.spec.path}`.replace(/:(\w+)/g, '{$1}'), name).to.equal(CONTRACT_TOOLS[name]!.operation);
    }
  });

  it('refuses to describe an operation that has no tool name', () => {
    const [status] = publicOperationHandlers;
    const unnamed = { ...status!, spec: { ...status!.spec, id: 'getSomethingElse' } };
    expect(() => mcpTools([unnamed])).to.throw('no MCP tool for operation getSomethingElse');
    const answerless = { ...status!, spec: { ...status!.spec, responses: {} } };
    expect(() => mcpTools([answerless])).to.throw('no MCP tool for operation getStatus');
  });

  it('says in llms-full.txt where the endpoint is, each tool with its operation, its errors, limits and resources', () => {
    const config = { PUBLIC_BASE_URL: 'https://shop.example', RATE_LIMIT_PER_MINUTE: 61, VERIFY_RATE_LIMIT_PER_MINUTE: 11 };
    const section = mcpReferenceSection(publicOperations, 'https://shop.example', config as never);
    const text = section.join('\n');
    expect(section[0]).to.equal('## Model Context Protocol');
    expect(section.at(-1), 'a blank line closes it').to.equal('');
    expect(section[1]).to.equal('');
    expect(text).to.include('`POST https://shop.example/mcp`').and.include('stateless').and.include('`GET` is 405');
    expect(text).to.include('`Accept: application/json, text/event-stream`').and.include('-32600');
    expect(text).to.include('read-only').and.include('answers its JSON as `structuredContent` and as text');
    for (const [name, { operation }] of Object.entries(CONTRACT_TOOLS)) {
      const summary = publicOperations.find((spec) => `${spec.method} ${spec.path}`.replace(/:(\w+)/g, '{$1}') === operation)!.summary;
      expect(section, name).to.include(`  - \`${name}\`: ${operation} (${summary})`);
    }
    expect(text).to.include('`isError: true`').and.include('422').and.include('404').and.include('-32602');
    expect(text, 'a refusal says when to try again').to.include('503').and.include('`_meta.retry_after`');
    expect(text).to.include('61 per minute per client IP').and.include('`verify_serial`').and.include('11 verifications per minute');
    expect(text).to.include('429').and.include('16 KiB');
    expect(text).to.include('Resources: `llms-full.txt`').and.include('OpenAPI');
    expect(text).to.include('"url": "https://shop.example/mcp"');
    expect(mcpReferenceSection(publicOperations, '', config as never).join('\n'), 'no base configured').to.include('"url": "https://HOST/mcp"');
  });
});
