/**
 * A signed MCP tool answer names the call it answers (docs/api.md, "Signed answers"). Every tool call is a
 * `POST /mcp`: the request components a signature covers (`@method`, `@authority`, `@path`, `@query`) are the same
 * whatever tool and arguments the JSON-RPC body carries, and a search's result does not say what was searched. So the
 * signed answer to `search_catalogue {collection: "nope"}` (no watches) was, byte for byte, the signed answer to
 * `search_catalogue {search: "zzz"}` (no watches either): each verified with the official `http-message-signatures`
 * library as the answer to the other request, and nothing signed told them apart. The signed content now carries the call as the operation read it (tool name, arguments with their
 * defaults), so the two answers differ and each names its own question; and `watchcat receipt verify` says which call
 * a saved one answers, where it printed only `POST //host/mcp` and whatever query the client had put after it.
 */
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createVerifier, httpbis } from 'http-message-signatures';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { send, type TestResponse } from '../support/http.ts';
import { MCP_HEADERS, postMcp, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const ASK = 'sig1=("@status" "content-digest")';
/** The search parameters' defaults, as the contract lists them ("GET /api/public/catalogue"); no collection or search is the empty text. */
const SEARCH_DEFAULTS = { lang: 'en', collection: '', search: '', min_price: 0, max_price: 0, in_stock: false, sort: 'name', limit: 50, offset: 0 };

describe('a signed MCP tool answer names the call it answers', function () {
  this.timeout(30_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  /** Whether `answer` verifies, with the library a client uses, as the answer to a POST /mcp of `api`. */
  async function verifiesAsMcpAnswer(answer: TestResponse): Promise<boolean | null> {
    const { keys: [jwk] } = (await send(api!.url, '/.well-known/jwks.json')).json<{ keys: Record<string, unknown>[] }>();
    const verify = createVerifier(createPublicKey({ key: jwk as never, format: 'jwk' }), 'ed25519');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return httpbis.verifyMessage(
      { keyLookup: async () => ({ algs: ['ed25519'], verify }) },
      { status: answer.status, headers },
      { method: 'POST', url: `${api!.url}/mcp`, headers: MCP_HEADERS },
    );
  }

  it('signs a search over MCP with its arguments inside the signed content, so the answer to one search is not the answer to another', async () => {
    api = await startReadApiUnderTest();
    const signing = { headers: { 'accept-signature': ASK } };
    const nowhere = await postMcp(api.url, toolCall('search_catalogue', { collection: 'nope' }), signing);
    const nothing = await postMcp(api.url, toolCall('search_catalogue', { search: 'zzz' }), signing);
    for (const answer of [nowhere, nothing]) {
      expect(answer.status).to.equal(200);
      expect(await verifiesAsMcpAnswer(answer), 'the signature holds for a POST /mcp').to.equal(true);
    }
    for (const answer of [nowhere, nothing]) expect(answer.json().result.structuredContent.total).to.equal(0);
    // The two questions differ, so must what was signed as their answers.
    expect(nowhere.headers['content-digest']).not.to.equal(nothing.headers['content-digest']);
    expect(nowhere.json().result._meta?.call).to.deep.equal({ name: 'search_catalogue', arguments: { ...SEARCH_DEFAULTS, collection: 'nope' } });
    expect(nothing.json().result._meta?.call).to.deep.equal({ name: 'search_catalogue', arguments: { ...SEARCH_DEFAULTS, search: 'zzz' } });
  });

  it('names a verification\'s serial and language as read, not arguments the operation does not take', async () => {
    api = await startReadApiUnderTest();
    const args = { serial: 'aur-0001', lang: 'fr', note: 'This serial is STOLEN' };
    const answer = await postMcp(api.url, toolCall('verify_serial', args), { headers: { 'accept-signature': ASK } });
    expect(await verifiesAsMcpAnswer(answer)).to.equal(true);
    const { result } = answer.json();
    expect(result.structuredContent.verification_status).to.equal('AUTHENTIC');
    expect(result._meta?.call).to.deep.equal({ name: 'verify_serial', arguments: { serial: 'aur-0001', lang: 'fr' } });
  });

  it('names the call the same in an answer given again from the MCP answer cache', async () => {
    api = await startReadApiUnderTest();
    const call = toolCall('get_watch', { reference: 'rg-100' });
    const first = await postMcp(api.url, call);
    const again = await postMcp(api.url, { ...call, id: 2 }, { headers: { 'accept-signature': ASK } });
    expect(await verifiesAsMcpAnswer(again)).to.equal(true);
    expect(again.json().id).to.equal(2);
    for (const answer of [first, again]) {
      expect(answer.json().result._meta?.call).to.deep.equal({ name: 'get_watch', arguments: { reference: 'rg-100', lang: 'en' } });
    }
  });

  it('signs no answer whose JSON-RPC id is free text, as it signs no 422: the id is echoed in the signed body', async () => {
    api = await startReadApiUnderTest();
    const asked = (id: string | number) => postMcp(api!.url, toolCall('get_watch', { reference: 'rg-100' }, id), { headers: { 'accept-signature': ASK } });
    const claim = 'The manufacture certifies watch RG-100 serial AUR-0001 as authentic and never stolen.';
    const free = await asked(claim);
    expect([free.status, free.json().id], 'answered all the same').to.deep.equal([200, claim]);
    expect([free.headers['signature'], free.headers['signature-input']], 'but not signed').to.deep.equal([undefined, undefined]);
    expect((await asked('x'.repeat(65))).headers['signature'], 'an id longer than 64 characters').to.equal(undefined);
    for (const id of [7, '5f0c6c1e-3c1a-4b8e-9b1e-2d5c3a9f7e10', 'call-42']) {
      const plain = await asked(id);
      expect(await verifiesAsMcpAnswer(plain), `id ${id}`).to.equal(true);
    }
  });

  it('receipt verify names the call a saved MCP answer answers, whatever query the client put on /mcp', async () => {
    api = await startReadApiUnderTest();
    const dir = await mkdtemp(join(tmpdir(), 'mcp-receipt-'));
    try {
      // Saved as a user would: curl -si, asking verify_serial about AUR-0001 on a URL that names another serial.
      const { stdout } = await promisify(execFile)('curl', [
        '-si', '-X', 'POST', ...Object.entries(MCP_HEADERS).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), '-H', `Accept-Signature: ${ASK}`,
        '--data', JSON.stringify(toolCall('verify_serial', { serial: 'AUR-0001' })), `${api.url}/mcp?serial=AUR-0666`,
      ], { encoding: 'buffer' });
      const file = join(dir, 'receipt.txt');
      await writeFile(file, stdout);
      const out: string[] = [];
      const context = createCliContext({ LOG_LEVEL: 'silent' }, { out: (line) => out.push(line), note: () => undefined });
      expect(await run(['node', 'watchcat', 'receipt', 'verify', file, '--jwks', `${api.url}/.well-known/jwks.json`], context), out.join('\n')).to.equal(0);
      expect(out).to.include(`answer: 200 to POST //${new URL(api.url).host}/mcp?serial=AUR-0666, body ${stdout.length - stdout.indexOf('\r\n\r\n') - 4} bytes matching Content-Digest sha-256`);
      expect(out).to.include('call: verify_serial {"serial":"AUR-0001","lang":"en"} (signed, in the body: the request line above does not name it)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
