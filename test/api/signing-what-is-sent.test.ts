/**
 * The signer of answers (read-api/signing/sign-answers.ts; docs/api.md "Signed answers") on answers no public
 * operation gives today but Koa allows, mounted on a tiny Koa app the way the front door runs it (once the answer is
 * final): `Content-Digest` is that of the content actually sent whatever the body is (a JSON object, a string,
 * bytes; nothing for a HEAD, a 204 or a 304 even when a body was set), a streamed answer is left unsigned, a field
 * sent several times is covered as its values joined by `, ` (RFC 9421, section 2.1), and what `Accept-Signature`
 * asks for is taken only as far as the contract allows. Every signature is checked with the independent RFC 9421 code
 * of test/support/rfc9421-by-hand.ts; digests are computed here from the bytes received.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { expect } from 'chai';
import { answerSigner, withdrawSignature } from '../../read-api/signing/sign-answers.ts';
import type { ResponseSigningKeys } from '../../read-api/signing/signing-keys.ts';
import { verifyReceipt } from '../../services/audit/receipt/verify-receipt.ts';
import { rawExchange } from '../support/raw-http.ts';
import { contentDigest, publicKeyFromX, readSignatureInput, signatureBase, signatureBytes, verifyBase } from '../support/rfc9421-by-hand.ts';
import { historyEntry, newSigningKeyPem, testSigningKeys } from '../support/signing-keys.ts';

const DEFAULT_COMPONENTS = ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@authority";req', '"@path";req', '"@query";req'];
/** SHA-256 of empty content (FIPS 180-4 test vector e3b0c442...), as RFC 9530 writes it. */
const EMPTY_CONTENT_DIGEST = 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:';
const JSON_BODY = { reference: 'WC-1', name: 'Équation' };

/** A Koa app whose routes answer in the ways Koa allows, signed after everything else as the front door does. */
async function serveSigned(keys: ResponseSigningKeys) {
  const sign = answerSigner(keys.current);
  const app = new Koa();
  app.use(async (ctx, next) => {
    await next();
    await sign(ctx);
  });
  app.use((ctx) => {
    ctx.set('X-Extra', 'extra');
    switch (ctx.path) {
      case '/object': ctx.body = JSON_BODY; break;
      case '/string': ctx.type = 'text/plain'; ctx.body = 'plain text, ünïcode'; break;
      case '/bytes': ctx.type = 'application/octet-stream'; ctx.body = Buffer.from([0, 1, 2, 255]); break;
      case '/stream': ctx.type = 'text/plain'; ctx.body = Readable.from(['streamed ', 'text']); break;
      // A body set first, then the status that sends none: Koa drops the body and its Content-Type there and then.
      case '/204': ctx.body = JSON_BODY; ctx.status = 204; break;
      case '/304': ctx.body = JSON_BODY; ctx.status = 304; break;
      case '/many': ctx.res.setHeader('X-Many', ['a', 'b']); ctx.body = JSON_BODY; break;
      // What a verification says of its data: where it was read, and how old it was (issue 40).
      case '/aged': ctx.set('X-Read-Model-Position', '2460'); ctx.set('X-Data-Age', '3'); ctx.body = JSON_BODY; break;
      case '/withdrawn':
        for (const name of ['Content-Digest', 'Signed-Request', 'Signature-Input', 'Signature']) ctx.set(name, 'half-way');
        withdrawSignature(ctx);
        ctx.body = JSON_BODY;
        break;
      default: ctx.status = 404;
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    authority: new URL(url).host,
    ask: async (path: string, acceptSignature: string | null = 'sig1=()', method = 'GET') => {
      const response = await fetch(`${url}${path}`, { method, headers: acceptSignature === null ? {} : { 'Accept-Signature': acceptSignature } });
      return { response, bytes: Buffer.from(await response.arrayBuffer()) };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type Served = Awaited<ReturnType<typeof serveSigned>>;

/** Verifies `response`'s signature by hand for a request `method path` without query; returns what it covers. */
function verifiedByHand(served: Served, keys: ResponseSigningKeys, response: Response, method: string, path: string) {
  const input = readSignatureInput(String(response.headers.get('signature-input')));
  const values: Record<string, string> = {
    '"@status"': String(response.status), '"@method";req': method, '"@path";req': path, '"@query";req': '?', '"@authority";req': served.authority,
  };
  for (const identifier of input.identifiers) {
    const name = JSON.parse(identifier.split(';')[0] as string) as string;
    if (!name.startsWith('@')) values[identifier] = String(response.headers.get(name));
  }
  const key = keys.jwks.keys.find((jwk) => jwk.kid === keys.current.keyid)!;
  const base = signatureBase(input.identifiers, values, input.params);
  expect(verifyBase(base, signatureBytes(String(response.headers.get('signature')), input.label), publicKeyFromX(key.x)), base).to.equal(true);
  return input;
}

const isSigned = (response: Response) => ['content-digest', 'signature-input', 'signature'].some((name) => response.headers.has(name));

describe('signing what is actually sent', () => {
  let keys: ResponseSigningKeys;
  let served: Served;
  before(async () => {
    const pem = newSigningKeyPem();
    keys = await testSigningKeys(pem, JSON.stringify({ keys: [historyEntry(pem, { nbf: 1_700_000_000 })] }));
  });
  beforeEach(async () => { served = await serveSigned(keys); });
  afterEach(() => served.close());

  it('digests the bytes sent, whatever the body was: a JSON object, a string, bytes', async () => {
    const expected: Record<string, Buffer> = {
      '/object': Buffer.from(JSON.stringify(JSON_BODY)),
      '/string': Buffer.from('plain text, ünïcode', 'utf8'),
      '/bytes': Buffer.from([0, 1, 2, 255]),
    };
    for (const [path, content] of Object.entries(expected)) {
      const { response, bytes } = await served.ask(path);
      expect(bytes.equals(content), path).to.equal(true);
      expect(response.headers.get('content-digest'), path).to.equal(contentDigest(content));
      expect(verifiedByHand(served, keys, response, 'GET', path).identifiers, path).to.deep.equal(DEFAULT_COMPONENTS);
    }
  });

  it('digests empty content for a HEAD, and for a 204 or a 304 whose body was set but is not sent', async () => {
    const answers = [['HEAD', '/object', 200], ['GET', '/204', 204], ['GET', '/304', 304]] as const;
    for (const [method, path, status] of answers) {
      const { response, bytes } = await served.ask(path, 'sig1=()', method);
      expect(response.status, path).to.equal(status);
      expect(bytes.length, path).to.equal(0);
      expect(response.headers.get('content-digest'), `${method} ${path}`).to.equal(EMPTY_CONTENT_DIGEST);
      verifiedByHand(served, keys, response, method, path);
    }
  });

  it('leaves a streamed answer unsigned (its bytes are not known before they are sent), and sends it whole', async () => {
    const { response, bytes } = await served.ask('/stream');
    expect(response.status).to.equal(200);
    expect(bytes.toString()).to.equal('streamed text');
    expect(isSigned(response)).to.equal(false);
  });

  it('covers a field sent several times as its values joined by ", "', async () => {
    const { response } = await served.ask('/many', 'sig1=("x-many")');
    expect(response.headers.get('x-many')).to.equal('a, b');
    expect(verifiedByHand(served, keys, response, 'GET', '/many').identifiers).to.deep.equal([...DEFAULT_COMPONENTS, '"x-many"']);
  });

  it('covers X-Read-Model-Position and X-Data-Age whenever the answer has them, though the request names neither; receipt verify reports both', async () => {
    const { response, bytes } = await served.ask('/aged', 'sig1=()');
    expect(verifiedByHand(served, keys, response, 'GET', '/aged').identifiers)
      .to.deep.equal(['"@status"', '"content-type"', '"content-digest"', '"x-read-model-position"', '"x-data-age"', ...DEFAULT_COMPONENTS.slice(3)]);
    const headers = Object.fromEntries([...response.headers].map(([name, value]) => [name, [value]]));
    const report = await verifyReceipt({ status: response.status, headers, body: bytes }, keys.jwks);
    expect(report.problems).to.deep.equal([]);
    expect(report).to.include({ position: 2460, dataAge: 3 });
  });

  it('signs under sig1 with the default components when Accept-Signature is present but empty', async () => {
    const { response } = await served.ask('/object', '');
    const input = verifiedByHand(served, keys, response, 'GET', '/object');
    expect(input.label).to.equal('sig1');
    expect(input.identifiers).to.deep.equal(DEFAULT_COMPONENTS);
  });

  it('ignores an Accept-Signature whose first member is not an inner list: the answer goes out unsigned', async () => {
    const { response, bytes } = await served.ask('/object', 'sig1=?1');
    expect(response.status).to.equal(200);
    expect(bytes.toString()).to.equal(JSON.stringify(JSON_BODY));
    expect(isSigned(response)).to.equal(false);
  });

  it('covers only plain names of the answer\'s fields and the request components it signs: not a field with parameters, a field taken from the request, another derived component, a token (even one spelling a field the answer has) or a number', async () => {
    const refused = 'sig2=("x-extra";sf "x-extra";req "@target-uri";req "@method" "@path";req x-extra 1);nonce=7;tag="t"';
    const { response } = await served.ask('/object', refused);
    const input = verifiedByHand(served, keys, response, 'GET', '/object');
    expect(input.label).to.equal('sig2');
    expect(input.identifiers).to.deep.equal(DEFAULT_COMPONENTS);
    // A nonce must be a string to be echoed; the tag is.
    expect(input.params).not.to.include('nonce');
    expect(input.params).to.include(';tag="t"');
    // The same field named plainly is covered.
    const plain = await served.ask('/object', 'sig2=("x-extra")');
    expect(verifiedByHand(served, keys, plain.response, 'GET', '/object').identifiers).to.deep.equal([...DEFAULT_COMPONENTS, '"x-extra"']);
  });

  it('signs under the address the connection reached whatever the Host says, well formed or not (issue 42)', async () => {
    for (const host of ['bad host', 'evil.example']) {
      const answer = await rawExchange(served.url, `GET /object HTTP/1.1\r\nHost: ${host}\r\nAccept-Signature: sig1=()\r\nConnection: close\r\n\r\n`);
      expect(answer?.status, host).to.equal(200);
      expect(answer?.body, host).to.equal(JSON.stringify(JSON_BODY));
      expect(answer!.headers['signed-request'], host).to.equal(`GET //${served.authority}/object`);
    }
  });

  it('takes back every field of a signature begun (withdrawSignature), as the front door does when signing fails', async () => {
    const { response } = await served.ask('/withdrawn', null);
    for (const name of ['content-digest', 'signed-request', 'signature-input', 'signature']) expect(response.headers.has(name), name).to.equal(false);
  });
});
