/**
 * Signed answers (docs/api.md, "Signed answers"; read-api/signing/sign-answers.ts) on the real read API: every
 * signature is checked with the independent RFC 9421 implementation of test/support/rfc9421-by-hand.ts, the
 * request components taken from the request the test sent, not from the answer's echo.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { send, type TestResponse } from '../support/http.ts';
import { rawExchange } from '../support/raw-http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { contentDigest, publicKeyFromX, readSignatureInput, signatureBase, signatureBytes, thumbprintByHand, verifyBase } from '../support/rfc9421-by-hand.ts';
import { historyEntry, newSigningKeyPem, testSigningKeys } from '../support/signing-keys.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';
import { readsThrough } from '../support/reads-through.ts';

const ASK = 'sig1=("@status" "content-digest");alg="ed25519"';
const CONTRACT_COMPONENTS = ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req'];
/** SHA-256 of empty content (FIPS 180-4 test vector e3b0c442...), as RFC 9530 writes it. */
const EMPTY_CONTENT_DIGEST = 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:';

interface Sent {
  method: string;
  path: string;
  query: string;
}

/** The authority a request to `api` names: the Host header Node's client sends (RFC 9421, section 2.2.3). */
const authorityOf = (api: ReadApiUnderTest) => new URL(api.url).host;
const isSigned = (answer: TestResponse) => ['content-digest', 'signature-input', 'signature', 'signed-request'].some((name) => name in answer.headers);

/** Checks `answer`'s signature by hand against the one key of the API's JWK Set; returns its identifiers and parameters. */
async function verifiedByHand(api: ReadApiUnderTest, answer: TestResponse, request: Sent) {
  const jwks = (await send(api.url, '/.well-known/jwks.json')).json<{ keys: { x: string; kid: string }[] }>();
  const [key] = jwks.keys;
  const input = readSignatureInput(String(answer.headers['signature-input']));
  const values: Record<string, string> = {
    '"@status"': String(answer.status),
    '"@method";req': request.method,
    '"@path";req': request.path,
    '"@query";req': `?${request.query}`,
    '"@authority";req': authorityOf(api),
  };
  for (const identifier of input.identifiers) {
    const name = JSON.parse(identifier.split(';')[0] as string) as string;
    if (!name.startsWith('@')) values[identifier] = String(answer.headers[name]);
  }
  const base = signatureBase(input.identifiers, values, input.params);
  const signature = signatureBytes(String(answer.headers['signature']), input.label);
  expect(verifyBase(base, signature, publicKeyFromX(key!.x)), `signature base:\n${base}`).to.equal(true);
  return { ...input, key: key! };
}

describe('signed answers', () => {
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('signs a verification over the contract components with created, keyid (the RFC 7638 thumbprint) and alg, verifiable by an independent implementation', async () => {
    api = await startReadApiUnderTest();
    const before = Math.floor(Date.now() / 1000);
    const answer = await send(api.url, '/api/public/verify/AUR-0001?lang=en', { headers: { 'accept-signature': ASK } });
    expect(answer.status).to.equal(200);
    expect(answer.json().verification_status).to.equal('AUTHENTIC');
    expect(answer.headers['content-digest']).to.equal(contentDigest(answer.text));
    expect(answer.headers['signed-request']).to.equal(`GET //${authorityOf(api)}/api/public/verify/AUR-0001?lang=en`);
    // CORS depends on Origin on every answer; a signed one also depends on Accept-Signature.
    expect(answer.headers['vary']).to.equal('Origin, Accept-Signature');
    const signed = await verifiedByHand(api, answer, { method: 'GET', path: '/api/public/verify/AUR-0001', query: 'lang=en' });
    expect(signed.label).to.equal('sig1');
    expect(signed.identifiers).to.include.members(CONTRACT_COMPONENTS);
    const created = Number(/;created=(\d+)/.exec(signed.params)?.[1]);
    expect(created).to.be.within(before, Math.ceil(Date.now() / 1000));
    expect(signed.params).to.include(`;keyid="${thumbprintByHand(signed.key.x)}"`).and.include(';alg="ed25519"');
    expect(signed.key.kid).to.equal(thumbprintByHand(signed.key.x));
  });

  it('signs a verification pinning no tree when the transparency log cannot be read at that moment, never a 500, and warns', async () => {
    api = await startReadApiUnderTest({ checkpoint: () => Promise.reject(new Error('the store is away')) });
    const answer = await send(api.url, '/api/public/verify/AUR-0001', { headers: { 'accept-signature': ASK } });
    expect(answer.status).to.equal(200);
    expect(answer.headers['watchcat-checkpoint']).to.equal(undefined);
    const signed = await verifiedByHand(api, answer, { method: 'GET', path: '/api/public/verify/AUR-0001', query: '' });
    expect(signed.identifiers).to.include.members(CONTRACT_COMPONENTS);
    const warned = api.logs.find((line) => line.level === 40 && line.msg === 'signing: the transparency log could not be read; the answer pins no checkpoint');
    expect((warned as { err?: { message?: string } } | undefined)?.err?.message, 'the warning says why').to.equal('the store is away');
    expect(api.errors()).to.deep.equal([]);
  });

  it('signs every public operation, a discovery file, an unknown path and a HEAD, whatever the status but a 422 (it echoes the input)', async () => {
    api = await startReadApiUnderTest();
    const requests: (Sent & { body?: string; expect: number })[] = [
      { method: 'GET', path: '/api/public/status', query: 'lang=fr', expect: 200 },
      { method: 'GET', path: '/api/public/catalogue', query: 'sort=price_desc&limit=2', expect: 200 },
      { method: 'GET', path: '/api/public/catalogue', query: 'limit=1000', expect: 422 },
      { method: 'GET', path: '/api/public/catalogue/RG-200', query: '', expect: 200 },
      { method: 'GET', path: '/api/public/collections', query: '', expect: 200 },
      { method: 'GET', path: '/api/public/configurator/options/regate', query: '', expect: 200 },
      { method: 'POST', path: '/api/public/configurator/price', query: '', body: '{"collection":"regate"}', expect: 422 },
      { method: 'GET', path: '/api/public/verify/NOPE-0000', query: '', expect: 200 },
      { method: 'GET', path: '/.well-known/jwks.json', query: '', expect: 200 },
      { method: 'GET', path: '/nowhere', query: '', expect: 404 },
      { method: 'HEAD', path: '/api/public/collections', query: '', expect: 200 },
    ];
    for (const request of requests) {
      const target = `${request.path}${request.query ? `?${request.query}` : ''}`;
      const answer = await send(api.url, target, {
        method: request.method,
        headers: { 'accept-signature': ASK, ...(request.body ? { 'content-type': 'application/json' } : {}) },
        ...(request.body ? { body: request.body } : {}),
      });
      expect(answer.status, target).to.equal(request.expect);
      if (request.expect === 422) {
        expect(isSigned(answer), target).to.equal(false);
        continue;
      }
      // A HEAD answer sends no content, so its digest is that of empty content.
      expect(answer.headers['content-digest'], target).to.equal(request.method === 'HEAD' ? EMPTY_CONTENT_DIGEST : contentDigest(answer.text));
      const signed = await verifiedByHand(api, answer, request);
      expect(signed.identifiers, target).to.include.members(CONTRACT_COMPONENTS);
    }
  });

  it('leaves an answer to a request without Accept-Signature unsigned, and ignores an Accept-Signature that is not a dictionary', async () => {
    api = await startReadApiUnderTest();
    for (const headers of [{}, { 'accept-signature': 'sig1=(' }] as Record<string, string>[]) {
      const answer = await send(api.url, '/api/public/verify/AUR-0001', { headers });
      expect(answer.status).to.equal(200);
      for (const name of ['content-digest', 'signature-input', 'signature', 'signed-request']) expect(answer.headers, name).not.to.have.property(name);
    }
  });

  it('uses the label and nonce the request asks for, and covers the further components it asks for that the answer has', async () => {
    api = await startReadApiUnderTest();
    const answer = await send(api.url, '/api/public/catalogue/RG-200', {
      headers: { 'accept-signature': 'receipt-7=("cache-control" "@status" "x-not-there");nonce="n-42";alg="ed25519"' },
    });
    expect(answer.status).to.equal(200);
    const signed = await verifiedByHand(api, answer, { method: 'GET', path: '/api/public/catalogue/RG-200', query: '' });
    expect(signed.label).to.equal('receipt-7');
    expect(String(answer.headers['signature'])).to.match(/^receipt-7=:/);
    expect(signed.identifiers).to.include.members([...CONTRACT_COMPONENTS, '"cache-control"']);
    expect(signed.identifiers).not.to.include('"x-not-there"');
    expect(signed.params).to.include(';nonce="n-42"');
  });

  it('signs answers replayed by the answer cache just the same', async () => {
    const store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
    let reads = 0;
    const get = store.get.bind(store);
    store.get = ((...args: Parameters<typeof get>) => {
      reads += 1;
      return get(...args);
    }) as typeof store.get;
    api = await startReadApiUnderTest({ readStore: readsThrough(store) });
    const path = '/api/public/catalogue/RG-200';
    const first = await send(api.url, path);
    const readsAfterFirst = reads;
    const replayed = await send(api.url, path, { headers: { 'accept-signature': ASK } });
    expect(reads, 'the second answer comes from the answer cache').to.equal(readsAfterFirst);
    expect(replayed.text).to.equal(first.text);
    expect(replayed.headers['content-digest']).to.equal(contentDigest(first.text));
    await verifiedByHand(api, replayed, { method: 'GET', path, query: '' });
  });

  it('signs a 304 over its status and ETag, with the digest of the empty content it sends and no content-type', async () => {
    api = await startReadApiUnderTest();
    const path = '/api/public/collections';
    const etag = String((await send(api.url, path)).headers['etag']);
    const answer = await send(api.url, path, { headers: { 'accept-signature': ASK, 'if-none-match': etag } });
    expect(answer.status).to.equal(304);
    expect(answer.text).to.equal('');
    expect(answer.headers['content-digest']).to.equal(EMPTY_CONTENT_DIGEST);
    const signed = await verifiedByHand(api, answer, { method: 'GET', path, query: '' });
    expect(signed.identifiers).to.include.members(['"@status"', '"etag"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req']);
    expect(signed.identifiers).not.to.include('"content-type"');
  });

  it('never signs a 429, and counts every request that asks for a signature against the general limit, whatever its path', async () => {
    api = await startReadApiUnderTest({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    // Paths outside /api/public are not counted while they ask for no signature...
    for (let i = 0; i < 4; i++) expect((await send(api.url, '/nowhere')).status).to.equal(404);
    // ...and are once they do.
    expect((await send(api.url, '/nowhere', { headers: { 'accept-signature': ASK } })).status).to.equal(404);
    expect((await send(api.url, '/llms.txt', { headers: { 'accept-signature': ASK } })).status).to.equal(200);
    for (const path of ['/.well-known/jwks.json', '/api/public/collections?lang=fr']) {
      const refused = await send(api.url, path, { headers: { 'accept-signature': ASK } });
      expect(refused.status, path).to.equal(429);
      expect(refused.json(), path).to.deep.equal({ detail: 'Rate limit exceeded: 2 per 1 minute' });
      expect(isSigned(refused), `${path}: a 429 carries no signature`).to.equal(false);
    }
  });

  it('ignores an Accept-Signature over 1 KiB, with more than 4 labels or more than 16 components, and signs one just within each bound', async () => {
    api = await startReadApiUnderTest();
    const components = (n: number) => Array.from({ length: n }, (_, i) => `"x-c${i}"`).join(' ');
    const labels = (n: number) => Array.from({ length: n }, (_, i) => `s${i}=("@status")`).join(', ');
    const within = [`sig1=(${components(16)})`, labels(4), `sig1=("@status");nonce="${'n'.repeat(1024 - 'sig1=("@status");nonce=""'.length)}"`];
    const beyond = [`sig1=(${components(17)})`, `s1=(${components(9)}), s2=(${components(8)})`, labels(5), `sig1=("@status");nonce="${'n'.repeat(1025 - 'sig1=("@status");nonce=""'.length)}"`];
    for (const header of within) {
      expect(header.length).to.be.at.most(1024);
      const answer = await send(api.url, '/api/public/collections', { headers: { 'accept-signature': header } });
      expect(isSigned(answer), header.slice(0, 80)).to.equal(true);
      await verifiedByHand(api, answer, { method: 'GET', path: '/api/public/collections', query: '' });
    }
    for (const header of beyond) {
      const answer = await send(api.url, '/api/public/collections', { headers: { 'accept-signature': header } });
      expect(answer.status).to.equal(200);
      expect(isSigned(answer), header.slice(0, 80)).to.equal(false);
    }
  });

  it('signs, and does not fail, when Accept-Signature names components such as constructor, __proto__ or toString', async () => {
    api = await startReadApiUnderTest();
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const header of [`sig1=("${name}")`, `sig1=("${name}";req)`, `${name.toLowerCase()}=("@status")`]) {
        const answer = await send(api.url, '/api/public/status', { headers: { 'accept-signature': header, origin: 'https://shop.example' } });
        expect(answer.status, header).to.equal(200);
        expect(answer.headers['access-control-allow-origin'], header).to.equal('*');
        // RFC 8941 keys start with a lower-case letter or `*`: `__proto__=(...)` is no dictionary, and is ignored.
        if (header.startsWith('__proto__=')) {
          expect(isSigned(answer), header).to.equal(false);
          continue;
        }
        const signed = await verifiedByHand(api, answer, { method: 'GET', path: '/api/public/status', query: '' });
        expect(signed.identifiers, header).to.include.members(CONTRACT_COMPONENTS).and.not.include(`"${name}"`);
      }
    }
    expect(api.errors().map((line) => line.msg)).to.deep.equal([]);
  });

  it('lets a page on another site ask for a signature: the CORS preflight of every operation allows Accept-Signature', async () => {
    api = await startReadApiUnderTest();
    for (const [path, method] of [['/api/public/verify/AUR-0001', 'GET'], ['/api/public/catalogue', 'GET'], ['/api/public/configurator/price', 'POST']] as const) {
      const answer = await send(api.url, path, {
        method: 'OPTIONS',
        headers: { origin: 'https://shop.example', 'access-control-request-method': method, 'access-control-request-headers': 'accept-signature' },
      });
      expect(answer.status, path).to.equal(204);
      expect(answer.headers['access-control-allow-origin'], path).to.equal('*');
      expect(String(answer.headers['access-control-allow-methods']).split(/, */), path).to.include(method);
      expect(String(answer.headers['access-control-allow-headers']).toLowerCase().split(/, */), path).to.include('accept-signature');
    }
  });

  it('does not sign OPTIONS *, which names no resource: a JSON 400', async () => {
    api = await startReadApiUnderTest();
    const answer = await rawExchange(api.url, `OPTIONS * HTTP/1.1\r\nHost: ${authorityOf(api)}\r\nAccept-Signature: ${ASK}\r\nConnection: close\r\n\r\n`);
    expect(answer?.status).to.equal(400);
    expect(JSON.parse(answer!.body)).to.deep.equal({ detail: 'Bad Request' });
    expect(answer!.headers).not.to.have.property('signature');
  });

  it('serves the JWK Set (the key history: retired, current and next public keys, never a private member), links it from status, llms.txt, llms-full.txt and OpenAPI, and logs no key', async () => {
    const pem = newSigningKeyPem();
    const [old, next] = [newSigningKeyPem(), newSigningKeyPem()];
    const now = Math.floor(Date.now() / 1000);
    const history = [
      historyEntry(old, { nbf: 1_600_000_000, exp: 1_700_000_000 }), historyEntry(pem, { nbf: 1_700_000_000 }), historyEntry(next, { nbf: now + 86_400 }),
    ];
    api = await startReadApiUnderTest({ signingKeys: await testSigningKeys(pem, JSON.stringify({ keys: history })) });
    const answer = await send(api.url, '/.well-known/jwks.json');
    expect(answer.status).to.equal(200);
    const { keys } = answer.json<{ keys: Record<string, unknown>[] }>();
    // The whole history, as listed: the retired key with its dates, the signing key, the next one before it signs.
    expect(keys).to.deep.equal(history.map((key) => ({ ...key, kid: thumbprintByHand(key.x), alg: 'EdDSA', use: 'sig' })));
    for (const key of keys) expect(key).not.to.have.property('d');
    expect(answer.headers['content-type']).to.equal('application/jwk-set+json');
    // PUBLIC_BASE_URL unset: links are root-relative (docs/api.md, the OpenAPI `servers` entry is then `/`).
    const jwksUrl = '/.well-known/jwks.json';
    expect((await send(api.url, '/api/public/status')).json().agents.jwks).to.equal(jwksUrl);
    for (const file of ['/llms.txt', '/llms-full.txt']) expect((await send(api.url, file)).text, file).to.include(jwksUrl);
    expect((await send(api.url, '/.well-known/openapi-public.json')).json().info.description).to.include(jwksUrl);
    const secret = pem.split('\n')[1] as string;
    expect(JSON.stringify(api.logs)).not.to.include(secret);
  });
});
