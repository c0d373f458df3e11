/**
 * `/mcp` through the official Go SDK (github.com/modelcontextprotocol/go-sdk, the program in test/interop/mcp), a
 * client this project did not write (docs/api.md, "Agents over MCP"; issue 44, item 3): its handshake, the lists,
 * every tool with good and with bad arguments, then one call past the general limit. Expected values: the HTTP
 * operations' own answers to the same requests (asked from another address, which has a count of its own), the
 * contract's tools, and the refusal's own `Retry-After`. The general limit is set to the number of calls, so that
 * the last one alone is refused only if the handshake and the lists cost none of it.
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { CONTRACT_TOOLS, timeless } from '../support/contract-tools.ts';
import { askGoProgram, buildGoProgram } from '../support/go-program.ts';
import { send, type TestResponse } from '../support/http.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

type Json = Record<string, any>;

interface Exchange { method: string; rpc_method: string; status: number; retry_after: string; limit: string; remaining: string; body?: Json }
interface GoCall {
  name: string; is_error: boolean; structured?: Json; text: string; error: string;
  rpc_error?: { code: number; message: string; data?: Json }; schema_error: string; http: Exchange[];
}
interface GoMcpAnswer {
  connect_error: string; protocol_version: string; server_name: string; handshake: Exchange[];
  tools: { name: string; read_only: boolean; input_schema: Json; output_schema: Json }[]; tools_error: string;
  resources: string[]; resources_error: string; resource_templates: number; resource_templates_error: string; lists: Exchange[];
  calls: GoCall[]; ping_error: string; tools_after: number; tools_after_error: string; after: Exchange[];
}

/** A tool call and the HTTP request that asks the operation the same. */
interface SameRequest { tool: string; args: Json; path: string; body?: Json }

const GOOD: SameRequest[] = [
  { tool: 'get_status', args: {}, path: '/api/public/status' },
  { tool: 'search_catalogue', args: { search: 'regate', sort: 'price_desc', limit: 2 }, path: '/api/public/catalogue?search=regate&sort=price_desc&limit=2' },
  { tool: 'get_watch', args: { reference: 'RG-100', lang: 'fr' }, path: '/api/public/catalogue/RG-100?lang=fr' },
  { tool: 'list_collections', args: {}, path: '/api/public/collections' },
  { tool: 'get_configurator_options', args: { collection: 'REGATE' }, path: '/api/public/configurator/options/REGATE' },
  {
    tool: 'quote_price', args: { collection: 'regate', model_ref: 'RG-100', options: { dial: 'blue' } },
    path: '/api/public/configurator/price', body: { collection: 'regate', model_ref: 'RG-100', options: { dial: 'blue' } },
  },
  { tool: 'verify_serial', args: { serial: 'AUR-0666' }, path: '/api/public/verify/AUR-0666' },
];

const BAD: SameRequest[] = [
  { tool: 'get_status', args: { lang: 'de' }, path: '/api/public/status?lang=de' },
  { tool: 'search_catalogue', args: { search: 'x'.repeat(101), sort: 'cheapest' }, path: `/api/public/catalogue?search=${'x'.repeat(101)}&sort=cheapest` },
  { tool: 'get_watch', args: { reference: 'XX-999' }, path: '/api/public/catalogue/XX-999' },
  { tool: 'list_collections', args: { lang: 'de' }, path: '/api/public/collections?lang=de' },
  { tool: 'get_configurator_options', args: { collection: 'NOPE' }, path: '/api/public/configurator/options/NOPE' },
  { tool: 'quote_price', args: { collection: 'regate' }, path: '/api/public/configurator/price', body: { collection: 'regate' } },
  { tool: 'verify_serial', args: { serial: 'no!' }, path: '/api/public/verify/no!' },
];

/** Every call but the last is within the general limit. */
const CALLS = [...GOOD, ...BAD];
const FILES = 500;
const VERIFICATIONS = 50;
const SOURCE = fileURLToPath(new URL('./mcp', import.meta.url));

function httpAnswer(api: ReadApiUnderTest, request: SameRequest): Promise<TestResponse> {
  // From an address of its own: these requests take nothing of the Go client's count.
  const from = { localAddress: '127.0.0.2' };
  if (request.body === undefined) return send(api.url, request.path, from);
  return send(api.url, request.path, { ...from, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
}

describe('MCP through the official Go SDK: handshake, lists, every tool, a refused call', function () {
  registerLegSuite('Go', this);
  this.timeout(300_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async function () {
    await api?.close();
    api = undefined;
  });

  // One test, the server started inside it: the mutation tester credits what a `before` hook runs to another test.
  it('connects, lists, calls every tool with good and bad arguments as the HTTP operations answer, and reads the retry time of a refused call', async function () {
    const built = await buildGoProgram(SOURCE, 'github.com/modelcontextprotocol/go-sdk');
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    api = await startReadApiUnderTest({
      env: { RATE_LIMIT_PER_MINUTE: String(CALLS.length), FILE_RATE_LIMIT_PER_MINUTE: String(FILES), VERIFY_RATE_LIMIT_PER_MINUTE: String(VERIFICATIONS) },
    });
    const limited = { tool: 'list_collections', args: {} };
    const go = await askGoProgram<GoMcpAnswer>(built.program, {
      url: `${api.url}/mcp`, calls: [...CALLS, limited].map(({ tool, args }) => ({ name: tool, arguments: args })),
    });

    expect(go.connect_error).to.equal('');
    expect(go.server_name).to.equal('watchcat');
    expect(go.protocol_version).to.match(/^\d{4}-\d{2}-\d{2}$/);
    const handshake = go.handshake.map(({ method, rpc_method: rpc, status }) => `${method} ${rpc} ${status}`);
    expect(handshake, 'the SDK probes server/discover first, then falls back to initialize')
      .to.include.members(['POST server/discover 400', 'POST initialize 200', 'POST notifications/initialized 202']);
    for (const exchange of [...go.handshake, ...go.lists, ...go.after]) {
      expect(exchange.limit, `${exchange.method} ${exchange.rpc_method}: housekeeping counts against the files limit`).to.equal(String(FILES));
    }

    expect(go.tools_error).to.equal('');
    expect(go.tools.map((tool) => tool.name)).to.have.members(Object.keys(CONTRACT_TOOLS));
    for (const tool of go.tools) {
      const params = CONTRACT_TOOLS[tool.name]!.params;
      expect(tool.read_only, tool.name).to.equal(true);
      expect(Object.keys(tool.input_schema['properties']), tool.name).to.have.members(params.map((param) => param.replace('*', '')));
      expect(tool.output_schema['type'], tool.name).to.equal('object');
    }
    expect(go.resources_error).to.equal('');
    expect(go.resources.map((uri) => new URL(uri).pathname)).to.have.members(['/llms-full.txt', '/.well-known/openapi-public.json']);
    expect(go.resource_templates_error, 'resources/templates/list is answered').to.equal('');
    expect(go.resource_templates).to.equal(0);

    expect(go.calls.map((call) => call.name)).to.deep.equal([...CALLS, limited].map(({ tool }) => tool));
    for (const [index, request] of CALLS.entries()) {
      const call = go.calls[index]!;
      const what = `${request.tool} ${JSON.stringify(request.args)}`;
      const http = await httpAnswer(api, request);
      expect(call.error, what).to.equal('');
      // A verification's answer shows the verification limit, as over HTTP.
      const limit = String(request.tool === 'verify_serial' ? VERIFICATIONS : CALLS.length);
      expect(call.http.filter((exchange) => exchange.rpc_method === 'tools/call').map(({ status, limit }) => ({ status, limit })), what)
        .to.deep.equal([{ status: 200, limit }]);
      if (index < GOOD.length) {
        expect(http.status, what).to.equal(200);
        expect(call.is_error, what).to.equal(false);
        expect(call.schema_error, `${what}: the result against the output schema the Go SDK listed`).to.equal('');
        expect(timeless(call.structured!), what).to.deep.equal(timeless(http.json()));
        expect(timeless(JSON.parse(call.text)), what).to.deep.equal(timeless(http.json()));
      } else {
        expect(http.status, what).to.be.oneOf([404, 422]);
        expect(call.is_error, what).to.equal(true);
        expect(call.structured, what).to.equal(undefined);
        expect(JSON.parse(call.text), what).to.deep.equal(http.json());
      }
    }

    // Past the limit: the SDK reads no body of a 429 and says only that; its http.Client sees the JSON-RPC error.
    const refused = go.calls.at(-1)!;
    expect(refused.error).to.equal('calling "tools/call": rejected by transport: sending "tools/call": Too Many Requests');
    const [answer, ...others] = refused.http.filter((exchange) => exchange.rpc_method === 'tools/call');
    expect(others).to.deep.equal([]);
    expect(answer).to.include({ status: 429, limit: String(CALLS.length), remaining: '0' });
    const retryAfter = Number(answer!.retry_after);
    expect(retryAfter).to.be.within(1, 60);
    const detail = `Rate limit exceeded: ${CALLS.length} per 1 minute`;
    expect(answer!.body).to.deep.include({
      jsonrpc: '2.0', error: { code: -32029, message: `${detail}; retry after ${retryAfter} s`, data: { detail, retry_after: retryAfter } }, detail,
    });
    expect(answer!.body!['id'], 'the id the SDK gave the call').to.be.a('number');

    // The session outlives the refusal: a ping and the tool list are still answered.
    expect(go.ping_error).to.equal('');
    expect(go.tools_after_error).to.equal('');
    expect(go.tools_after).to.equal(7);
  });
});
