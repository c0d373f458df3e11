/**
 * The MCP endpoint as the MCP Inspector's command line sees it (`@modelcontextprotocol/inspector`, a client written
 * apart from the SDK version the service uses): the tools and resources it lists, a result, and error results it
 * hands over as sent (docs/api.md, "Agents over MCP"). The CLI exits 5 on an `isError` result, after printing it.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

// Resolved from this file, not the working directory: the mutation tester runs the suite from a sandbox folder.
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/clients/launcher/build/index.js');

interface Run {
  code: number;
  output: Record<string, any>;
}

describe('MCP endpoint under the MCP Inspector CLI', function () {
  this.timeout(60_000);
  let api: ReadApiUnderTest;
  let home: string;

  before(async function () {
    api = await startReadApiUnderTest();
    // The CLI keeps a catalogue of servers under HOME: a scratch one, not the user's.
    home = await mkdtemp(join(tmpdir(), 'watchcat-inspector-'));
  });
  after(async function () {
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  function inspect(...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
      const cli = ['--cli', `${api.url}/mcp`, '--transport', 'http', ...args];
      execFile(process.execPath, [INSPECTOR, ...cli], { env: { ...process.env, HOME: home }, timeout: 50_000 }, (error, stdout) => {
        if (error !== null && typeof error.code !== 'number') return reject(error);
        resolve({ code: error === null ? 0 : Number(error.code), output: JSON.parse(stdout) as Record<string, any> });
      });
    });
  }

  it('lists the seven tools of the contract and the two resources', async function () {
    const { code, output } = await inspect('--method', 'tools/list');
    expect(code).to.equal(0);
    expect(output['tools'].map((tool: { name: string }) => tool.name)).to.have.members([
      'get_status', 'search_catalogue', 'get_watch', 'list_collections', 'get_configurator_options', 'quote_price', 'verify_serial',
    ]);
    const resources = await inspect('--method', 'resources/list');
    expect(resources.output['resources'].map((resource: { uri: string }) => new URL(resource.uri).pathname))
      .to.have.members(['/llms-full.txt', '/.well-known/openapi-public.json']);
  });

  it('gets a watch as structured content', async function () {
    const { code, output } = await inspect('--method', 'tools/call', '--tool-name', 'get_watch', '--tool-arg', 'reference=rg-100');
    expect(code).to.equal(0);
    expect(output['isError'] ?? false).to.equal(false);
    expect(output['structuredContent']).to.include({ reference: 'RG-100', currency: 'EUR' });
  });

  it('hands over an unknown reference and bad arguments as isError results whose text is the HTTP error body', async function () {
    const unknown = await inspect('--method', 'tools/call', '--tool-name', 'get_watch', '--tool-arg', 'reference=XX-404');
    expect(unknown.code).to.equal(5);
    expect(unknown.output).to.deep.equal({ content: [{ type: 'text', text: '{"detail":"Watch not found"}' }], isError: true });

    const bad = await inspect('--method', 'tools/call', '--tool-name', 'verify_serial', '--tool-arg', 'serial=no!');
    expect(bad.code).to.equal(5);
    expect(bad.output).not.to.have.property('structuredContent');
    const [detail] = JSON.parse(bad.output['content'][0].text).detail;
    expect(detail).to.include({ type: 'string_pattern_mismatch', input: 'no!' });
    expect(detail.loc).to.deep.equal(['path', 'serial']);
  });
});
