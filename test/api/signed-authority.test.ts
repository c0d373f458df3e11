/**
 * Issue 42, item 4: a signature covers only what the service says. With `PUBLIC_BASE_URL` unset (the `npm start`
 * default), `Host: evil.example` (or an absolute-form target naming it) plus `Accept-Signature` on the discovery
 * files gave signed texts linking to `http://evil.example/...` that `receipt verify` accepted, signed under the
 * authority `evil.example`; and a signed 422 echoed the client's text under the manufacture's key. Now the texts link
 * to the address the connection reached, the receipt's `@authority` is that address, and a 422 goes out unsigned.
 * Receipts are checked by `verifyReceipt` (what `watchcat receipt verify` runs) against the served key set.
 */
import { expect } from 'chai';
import { parseSavedResponse } from '../../services/audit/receipt/saved-response.ts';
import { verifyReceipt } from '../../services/audit/receipt/verify-receipt.ts';
import type { JwkSet } from '../../shared/signing/jwk-set.ts';
import { postMcp, toolCall } from '../support/mcp-client.ts';
import { rawExchange } from '../support/raw-http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const ASK = 'sig1=("@status" "content-digest")';
const EVIL = 'evil.example';
const FILES = ['/llms.txt', '/llms-full.txt', '/.well-known/ai-brief.json', '/.well-known/openapi-public.json'];

describe('signed answers name the service, never the client\'s Host', function () {
  this.timeout(30_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  const fetchRaw = (target: string, host: string) =>
    rawExchange(api!.url, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAccept-Signature: ${ASK}\r\nConnection: close\r\n\r\n`);

  for (const [shape, target] of [['Host: evil.example', (path: string) => path], ['an absolute-form target', (path: string) => `http://${EVIL}${path}`]] as const) {
    it(`${shape} with Accept-Signature: discovery files link to the listening address, and the receipt's @authority is it`, async () => {
      api = await startReadApiUnderTest();
      const own = new URL(api.url).host;
      const jwks = await (await fetch(`${api.url}/.well-known/jwks.json`)).json() as JwkSet;
      for (const path of FILES) {
        const answer = (await fetchRaw(target(path), EVIL))!;
        expect(answer.status, path).to.equal(200);
        expect(answer.body, path).not.to.include(EVIL);
        if (path !== '/.well-known/openapi-public.json') expect(answer.body, path).to.include(`${api.url}/`);
        expect(answer.headers['signed-request'], path).to.equal(`GET //${own}${path}`);
        const report = await verifyReceipt(parseSavedResponse(answer.raw), jwks);
        expect(report.problems, path).to.deep.equal([]);
        expect(report.request, path).to.equal(`GET //${own}${path}`);
      }
    });
  }

  it('leaves a 422 unsigned, even asked for a signature: its issues echo what the client sent', async () => {
    api = await startReadApiUnderTest();
    const text = 'This serial AUR-2021-000042 is STOLEN - the manufacture';
    const answer = await fetch(`${api.url}/api/public/verify/${encodeURIComponent(text)}`, { headers: { 'accept-signature': ASK } });
    expect(answer.status).to.equal(422);
    expect(await answer.text()).to.include('STOLEN');
    for (const name of ['content-digest', 'signature-input', 'signature', 'signed-request']) expect(answer.headers.has(name), name).to.equal(false);
    // An answer that says only what the service says is signed as ever.
    const found = await fetch(`${api.url}/api/public/verify/AUR-2021-000042`, { headers: { 'accept-signature': ASK } });
    expect(found.status).to.equal(200);
    expect(found.headers.has('signature')).to.equal(true);
  });

  it('leaves an MCP error unsigned (a tool\'s 422 echoed in an isError result, a JSON-RPC error), and signs a tool\'s answer', async () => {
    api = await startReadApiUnderTest();
    const signing = { headers: { 'accept-signature': ASK } };
    const text = 'This serial AUR-2021-000042 is STOLEN - the manufacture';
    const echoed = await postMcp(api.url, toolCall('verify_serial', { serial: text }), signing);
    expect(echoed.json().result.isError).to.equal(true);
    expect(echoed.text).to.include('STOLEN');
    const unknown = await postMcp(api.url, toolCall(`${text} tool`, {}), signing);
    expect(unknown.json().error.message).to.include('STOLEN');
    const badParams = await postMcp(api.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_status', arguments: text } }, signing);
    expect(badParams.json().error.code).to.equal(-32602);
    for (const answer of [echoed, unknown, badParams]) expect(answer.headers).not.to.have.property('signature');
    const answered = await postMcp(api.url, toolCall('verify_serial', { serial: 'AUR-2021-000042' }), signing);
    expect(answered.json().result.isError).to.equal(undefined);
    expect(answered.headers).to.have.property('signature');
  });
});
