/**
 * The seven MCP tools (docs/api.md, "Agents over MCP") seen by the SDK's own client over Streamable HTTP: their
 * descriptions (names, parameters, read-only), every tool called in English and French with its result compared to
 * the HTTP operation's answer to the same request, the error results, and the two resources.
 */
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { publicOperationHandlers } from '../../shared/read-model/public-api/operations/index.ts';
import { contractAnswers } from '../support/contract-answers.ts';
import { postJson, send, type TestResponse } from '../support/http.ts';
import { connectedClient, postMcp } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { CONTRACT_TOOLS, timeless } from '../support/contract-tools.ts';
import { TEST_BRAND } from './support/test-app.ts';

type Json = Record<string, any>;


/** One request per tool, as tool arguments and as the HTTP request that asks the same. */
const SAME_REQUESTS: { tool: string; args: Json; http: string; body?: Json }[] = [
  { tool: 'get_status', args: {}, http: '/api/public/status' },
  { tool: 'search_catalogue', args: { search: 'regate', sort: 'price_desc', limit: 2, offset: 1 }, http: '/api/public/catalogue?search=regate&sort=price_desc&limit=2&offset=1' },
  { tool: 'search_catalogue', args: { collection: 'HERITAGE', in_stock: false, min_price: 100 }, http: '/api/public/catalogue?collection=HERITAGE&min_price=100' },
  { tool: 'get_watch', args: { reference: 'rg-200' }, http: '/api/public/catalogue/rg-200' },
  { tool: 'list_collections', args: {}, http: '/api/public/collections' },
  { tool: 'get_configurator_options', args: { collection: 'REGATE' }, http: '/api/public/configurator/options/REGATE' },
  {
    tool: 'quote_price', args: { collection: 'regate', model_ref: 'RG-100', options: { dial: 'blue', 'case-back': 'sapphire' }, accessories: { strap: 2 } },
    http: '/api/public/configurator/price', body: { collection: 'regate', model_ref: 'RG-100', options: { dial: 'blue', 'case-back': 'sapphire' }, accessories: { strap: 2 } },
  },
  { tool: 'verify_serial', args: { serial: 'aur-0666' }, http: '/api/public/verify/aur-0666' },
  { tool: 'verify_serial', args: { serial: 'NOPE-0000' }, http: '/api/public/verify/NOPE-0000' },
];

const withLang = (path: string, lang: string) => `${path}${path.includes('?') ? '&' : '?'}lang=${lang}`;

function httpAnswer(api: ReadApiUnderTest, request: (typeof SAME_REQUESTS)[number], lang: string): Promise<TestResponse> {
  return request.body ? postJson(api.url, withLang(request.http, lang), request.body) : send(api.url, withLang(request.http, lang));
}

describe('MCP tools over Streamable HTTP, with the SDK client', function () {
  this.timeout(20_000);
  let api: ReadApiUnderTest;
  let client: Client;
  let tools: Tool[];

  // A read API per test: what its start builds (the tools' descriptions, the instructions, the resources) then runs
  // inside each test that looks at it. Started once in a `before` hook, the mutation tester credited all of it to the
  // one test that ran before the hook, and tried its mutants against that test alone (test/README.md, "MCP").
  beforeEach(async function () {
    api = await startReadApiUnderTest();
    client = await connectedClient(api.url);
    ({ tools } = await client.listTools());
  });
  afterEach(async function () {
    await client.close();
    await api.close();
  });

  it('lists one read-only, idempotent, closed-world tool per public operation, with the operation\'s own parameters, the required ones required', function () {
    expect(tools.map((tool) => tool.name)).to.have.members(Object.keys(CONTRACT_TOOLS));
    for (const tool of tools) {
      const expected = CONTRACT_TOOLS[tool.name]!.params;
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).to.have.members(expected.map((p) => p.replace('*', '')));
      expect(tool.inputSchema.required ?? [], tool.name).to.have.members(expected.filter((p) => p.startsWith('*')).map((p) => p.slice(1)));
      expect(tool.annotations?.readOnlyHint, tool.name).to.equal(true);
      expect(tool.annotations?.destructiveHint, tool.name).to.equal(false);
      // The MCP hints as its specification defines them, for a read-only API over its own catalogue: a call again
      // with the same arguments changes nothing, and no tool reaches beyond this service.
      expect(tool.annotations?.idempotentHint, tool.name).to.equal(true);
      expect(tool.annotations?.openWorldHint, tool.name).to.equal(false);
      expect(tool.outputSchema?.type, tool.name).to.equal('object');
    }
  });

  it('gives each parameter the bounds and defaults of the contract', function () {
    const props = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, Json>;
    const values = (schema: Json) => schema['enum'] ?? (schema['anyOf'] as Json[]).map((branch) => branch['const']);
    const catalogue = props('search_catalogue');
    expect(catalogue['limit']).to.include({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(catalogue['offset']).to.include({ type: 'integer', minimum: 0, default: 0 });
    expect(catalogue['search']).to.include({ type: 'string', maxLength: 100 });
    expect(catalogue['min_price']).to.include({ type: 'number', minimum: 0, default: 0 });
    expect(catalogue['max_price']).to.include({ type: 'number', minimum: 0, default: 0 });
    expect(catalogue['in_stock']).to.include({ type: 'boolean', default: false });
    expect(values(catalogue['sort']!)).to.have.members(['name', 'price_asc', 'price_desc', 'collection']);
    expect(catalogue['sort']).to.include({ default: 'name' });
    expect(props('verify_serial')['serial']).to.include({ type: 'string', pattern: '^[A-Za-z0-9-]{4,32}$' });
    for (const tool of tools) {
      const lang = (tool.inputSchema.properties as Record<string, Json>)['lang']!;
      expect(values(lang), tool.name).to.have.members(['en', 'fr']);
      expect(lang['default'], tool.name).to.equal('en');
    }
  });

  it('describes every tool from the operation\'s own typebox schemas: input = its parameters, output = its 200 shape', function () {
    for (const operation of publicOperationHandlers) {
      const { spec } = operation;
      const tool = tools.find((candidate) => candidate.title === spec.summary)!;
      const parts = [spec.params?.path, spec.params?.query, spec.body].filter((part) => part !== undefined) as Json[];
      const properties = Object.assign({}, ...parts.map((part) => JSON.parse(JSON.stringify(part))['properties']));
      expect(tool.inputSchema.properties, spec.id).to.deep.equal(properties);
      expect(tool.outputSchema, spec.id).to.deep.equal(JSON.parse(JSON.stringify(spec.responses['200']!.schema)));
    }
  });

  for (const lang of ['en', 'fr']) {
    it(`answers every tool in ${lang} with the JSON the HTTP operation answers to the same request, as structured content and as text`, async function () {
      const contract = contractAnswers();
      const called = new Set<string>();
      for (const request of SAME_REQUESTS) {
        // callTool checks the structured content against the tool's output schema, as the SDK client always does.
        const result = await client.callTool({ name: request.tool, arguments: { ...request.args, lang } });
        const http = await httpAnswer(api, request, lang);
        const what = `${request.tool} ${JSON.stringify(request.args)}`;
        expect(http.status, what).to.equal(200);
        expect(result.isError ?? false, what).to.equal(false);
        const structured = result.structuredContent as Json;
        contract.check(...(CONTRACT_TOOLS[request.tool]!.operation.split(' ') as [string, string]), 200, structured);
        expect(structured['lang'] ?? lang, what).to.equal(lang);
        expect(timeless(structured), what).to.deep.equal(timeless(http.json()));
        const [text] = result.content as { type: string; text: string }[];
        expect(text?.type, what).to.equal('text');
        expect(JSON.parse(text!.text), what).to.deep.equal(structured);
        called.add(request.tool);
      }
      expect([...called]).to.have.members(Object.keys(CONTRACT_TOOLS));
    });
  }

  /** An error case: tool arguments, the HTTP request that asks the same, and the status the contract gives it. */
  const errorCase = (tool: string, args: Json, status: 404 | 422, path: string, body?: Json) => ({ tool, args, status, path, body });
  const PRICE = '/api/public/configurator/price';
  const ERROR_CASES = [
    // `lang` is a parameter of every tool: a bad one on each.
    errorCase('get_status', { lang: 'de' }, 422, '/api/public/status?lang=de'),
    errorCase('list_collections', { lang: 'de' }, 422, '/api/public/collections?lang=de'),
    errorCase('get_watch', { reference: 'RG-100', lang: 'it' }, 422, '/api/public/catalogue/RG-100?lang=it'),
    errorCase('get_configurator_options', { collection: 'REGATE', lang: 'es' }, 422, '/api/public/configurator/options/REGATE?lang=es'),
    errorCase('verify_serial', { serial: 'AUR-0001', lang: 'de' }, 422, '/api/public/verify/AUR-0001?lang=de'),
    errorCase('search_catalogue', { limit: '101', sort: 'foo', lang: 'de' }, 422, '/api/public/catalogue?limit=101&sort=foo&lang=de'),
    errorCase('search_catalogue', { in_stock: 'maybe', min_price: 'x', offset: '-1' }, 422, '/api/public/catalogue?in_stock=maybe&min_price=x&offset=-1'),
    errorCase('verify_serial', { serial: 'no!' }, 422, '/api/public/verify/no!'),
    // Each price error of the contract: ill-typed and missing fields, unknown collection, model, option, accessory, quantity.
    errorCase('quote_price', { model_ref: 7 }, 422, PRICE, { model_ref: 7 }),
    errorCase('quote_price', { collection: 'nowhere', model_ref: 'RG-100' }, 422, PRICE, { collection: 'nowhere', model_ref: 'RG-100' }),
    errorCase('quote_price', { collection: 'regate', model_ref: 'XX-1' }, 422, PRICE, { collection: 'regate', model_ref: 'XX-1' }),
    errorCase('quote_price', { collection: 'regate', model_ref: 'RG-100', options: { dial: 'plaid', nope: 'x' } }, 422, PRICE,
      { collection: 'regate', model_ref: 'RG-100', options: { dial: 'plaid', nope: 'x' } }),
    errorCase('quote_price', { collection: 'regate', model_ref: 'RG-100', accessories: { strap: 9, nope: 1 } }, 422, PRICE,
      { collection: 'regate', model_ref: 'RG-100', accessories: { strap: 9, nope: 1 } }),
    // Unknown reference and collection: the operation's 404 body.
    errorCase('get_watch', { reference: 'XX-404' }, 404, '/api/public/catalogue/XX-404'),
    errorCase('get_configurator_options', { collection: 'nowhere', lang: 'fr' }, 404, '/api/public/configurator/options/nowhere?lang=fr'),
  ];

  it('hands every error to the SDK client\'s callTool as an isError result: the HTTP operation\'s 422 or 404 body as text, no structured content', async function () {
    const tools = new Set<string>();
    for (const { tool, args, status, path, body } of ERROR_CASES) {
      const what = `${tool} ${JSON.stringify(args)}`;
      // callTool checks any structured content against the tool's output schema and throws on a mismatch.
      const result = await client.callTool({ name: tool, arguments: args });
      const http = body ? await postJson(api.url, path, body) : await send(api.url, path);
      expect(http.status, what).to.equal(status);
      expect(result.isError, what).to.equal(true);
      expect(result, what).not.to.have.property('structuredContent');
      const content = result.content as { type: string; text: string }[];
      expect(content.map((part) => part.type), what).to.deep.equal(['text']);
      expect(JSON.parse(content[0]!.text), what).to.deep.equal(http.json());
      tools.add(tool);
    }
    expect([...tools], 'every tool has an error case').to.have.members(Object.keys(CONTRACT_TOOLS));
  });

  it('answers a missing path parameter as FastAPI reports a missing parameter: at ["path", name], input null', async function () {
    const result = await client.callTool({ name: 'get_watch', arguments: {} });
    expect(result.isError).to.equal(true);
    const [content] = result.content as { text: string }[];
    expect(JSON.parse(content!.text)).to.deep.equal({ detail: [{ type: 'missing', loc: ['path', 'reference'], msg: 'Field required', input: null }] });
  });

  it('refuses a list given for a scalar argument (JSON, not a repeated query parameter), as the HTTP query still takes the last', async function () {
    const detailOf = async (name: string, args: Json) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args)}`).to.equal(true);
      return JSON.parse((result.content as { text: string }[])[0]!.text).detail as Json[];
    };
    const LANG = { type: 'literal_error', loc: ['query', 'lang'], msg: 'Input should be \'en\' or \'fr\'', input: ['fr'], ctx: { expected: '\'en\' or \'fr\'' } };
    expect(await detailOf('search_catalogue', { lang: ['fr'] })).to.deep.equal([LANG]);
    expect(await detailOf('search_catalogue', { collection: ['a', 'b'], limit: [1, 2] })).to.deep.equal([
      { type: 'string_type', loc: ['query', 'collection'], msg: 'Input should be a valid string', input: ['a', 'b'] },
      { type: 'int_type', loc: ['query', 'limit'], msg: 'Input should be a valid integer', input: [1, 2] },
    ]);
    expect(await detailOf('quote_price', { collection: 'regate', model_ref: 'RG-100', lang: ['fr'] })).to.deep.equal([LANG]);
    const http = await send(api.url, '/api/public/catalogue?lang=de&lang=fr&limit=1');
    expect(http.status).to.equal(200);
    expect(http.json().lang).to.equal('fr');
  });

  it('refuses an unknown tool with a JSON-RPC error', async function () {
    let refused: unknown;
    try {
      await client.callTool({ name: 'delete_catalogue', arguments: {} });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(Error);
    expect((refused as { code?: number }).code).to.equal(-32602);
  });

  it('tells the agent, on initialize, what the tools are and what limits their calls count against', function () {
    const instructions = client.getInstructions() ?? '';
    expect(instructions).to.match(/read-only/i);
    expect(instructions).to.include('`verify_serial`').and.include('1000000 requests per minute');
  });

  it('introduces itself as the service of the contract\'s version under the brand\'s name, offering tools and resources with no list-change notices', async function () {
    const info = client.getServerVersion();
    // The API's version as its status operation answers it over HTTP (docs/api.md: `version: "1.0.0"`).
    const status = (await send(api.url, '/api/public/status')).json<{ version: string }>();
    expect(status.version).to.equal('1.0.0');
    expect(info?.version).to.equal(status.version);
    expect(info?.name, 'a name an agent can show').to.be.a('string').and.not.equal('');
    expect(info?.title).to.equal(TEST_BRAND.name);
    const capabilities = client.getServerCapabilities();
    expect(capabilities).to.have.property('tools');
    expect(capabilities).to.have.property('resources');
    // Stateless (docs/api.md): no session, so no notice of a changed list could ever reach the agent.
    expect(capabilities?.tools?.listChanged ?? false, 'tools').to.equal(false);
    expect(capabilities?.resources?.listChanged ?? false, 'resources').to.equal(false);
  });

  it('refuses to read a resource it does not serve with MCP\'s "Resource not found" error', async function () {
    let refused: unknown;
    try {
      await client.readResource({ uri: 'file:///etc/passwd' });
    } catch (error) {
      refused = error;
    }
    expect((refused as { code?: number }).code).to.equal(-32002);
  });

  it('reads a resource under any spelling of the host: the one listed to another Host header, localhost, 127.0.0.1, upper case', async function () {
    const listed = await postMcp(api.url, { jsonrpc: '2.0', id: 1, method: 'resources/list', params: {} }, { headers: { host: 'Watchcat.EXAMPLE:8080' } });
    const uris = listed.json<{ result: { resources: { uri: string }[] } }>().result.resources.map((resource) => resource.uri);
    expect(uris).to.have.length(2);
    const { port } = new URL(api.url);
    for (const uri of uris) {
      const { pathname } = new URL(uri);
      const served = await send(api.url, pathname);
      for (const spelling of [uri, `http://localhost:${port}${pathname}`, `http://127.0.0.1:${port}${pathname}`, `HTTP://LOCALHOST:${port}${pathname}`]) {
        const { contents } = await client.readResource({ uri: spelling });
        expect((contents[0] as { text: string }).text, spelling).to.equal(served.text);
      }
    }
  });

  it('serves llms-full.txt and the OpenAPI document as resources, the very texts of the discovery files', async function () {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => new URL(resource.uri).pathname)).to.have.members(['/llms-full.txt', '/.well-known/openapi-public.json']);
    for (const resource of resources) {
      const { contents } = await client.readResource({ uri: resource.uri });
      const served = await send(api.url, new URL(resource.uri).pathname);
      expect(contents.map((content) => content.uri)).to.deep.equal([resource.uri]);
      expect((contents[0] as { text: string }).text, resource.uri).to.equal(served.text);
    }
  });
});
