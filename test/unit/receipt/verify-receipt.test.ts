/**
 * What `verifyReceipt` (services/audit/receipt/verify-receipt.ts) says of a saved signed answer that is malformed or
 * signed loosely: each refusal named, in the words docs/api.md ("Signed answers") and the module promise, and what a
 * receipt that holds reports. Receipts are signed here by the independent RFC 9421 code of
 * test/support/rfc9421-by-hand.ts, so what the verifier accepts is not checked against its own signer.
 */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { parseSavedResponse } from '../../../services/audit/receipt/saved-response.ts';
import { verifyReceipt } from '../../../services/audit/receipt/verify-receipt.ts';
import { contentDigest, signatureBase, signBase, thumbprintByHand } from '../../support/rfc9421-by-hand.ts';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const x = String(publicKey.export({ format: 'jwk' }).x);
const KEYID = thumbprintByHand(x);
const JWKS = { keys: [{ kty: 'OKP' as const, crv: 'Ed25519' as const, x }] };
const PATH = '/api/public/verify/AUR-0001';
const BODY = '{"serial":"AUR-0001","verification_status":"AUTHENTIC"}';
const REQUIRED = ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req'];

/** The header lines of a verification's receipt, each named so that a test can leave one out or change it. */
const TYPE_LINE = 'Content-Type: application/json';
const DIGEST_LINE = `Content-Digest: ${contentDigest(BODY)}`;
const REQUEST_LINE = `Signed-Request: GET //watchcat.example${PATH}`;
const USUAL_HEADERS = [TYPE_LINE, DIGEST_LINE, REQUEST_LINE];

interface Receipt {
  /** The covered identifiers, in order. */
  covered?: string[];
  /** The parameters after the inner list, as they are serialized. */
  params?: string;
  /** Header lines after the status line, replacing the usual ones when given. */
  headers?: string[];
  /** Extra header lines with their covered values: `[line, identifier, value]`. */
  extra?: [string, string, string][];
  /** Replaces the Signature-Input and Signature lines when given. */
  signatureLines?: string[];
  /** Covered values signed instead of the usual ones, by identifier. */
  signed?: Record<string, string>;
  body?: string;
}

const now = () => Math.floor(Date.now() / 1000);
const usualParams = (created = now() - 5) => `;created=${created};keyid="${KEYID}";alg="ed25519"`;

/** A `curl -si` receipt of a verification, signed over `covered` with `params`. */
function receipt({ covered = REQUIRED, params = usualParams(), headers, extra = [], signatureLines, signed = {}, body = BODY }: Receipt = {}) {
  const values: Record<string, string> = {
    '"@status"': '200', '"content-type"': 'application/json', '"content-digest"': contentDigest(BODY),
    '"@method";req': 'GET', '"@path";req': PATH, '"@query";req': '?', '"@authority";req': 'watchcat.example',
  };
  for (const [, identifier, value] of extra) values[identifier] = value;
  Object.assign(values, signed);
  const all = [...covered, ...extra.map(([, identifier]) => identifier)];
  const input = `(${all.join(' ')})${params}`;
  const signature = signBase(signatureBase(all, values, input), privateKey).toString('base64');
  const lines = [
    'HTTP/1.1 200 OK',
    ...(headers ?? USUAL_HEADERS),
    ...extra.map(([line]) => line),
    ...(signatureLines ?? [`Signature-Input: sig1=${input}`, `Signature: sig1=:${signature}:`]),
    '', body,
  ];
  return parseSavedResponse(Buffer.from(lines.join('\r\n'), 'latin1'));
}

const reportOf = (r: Receipt) => verifyReceipt(receipt(r), JWKS);
const problemsOf = async (r: Receipt) => (await reportOf(r)).problems;

describe('a saved signed answer checked offline (verifyReceipt)', () => {
  it('holds when signed over what the contract lists, and reports the label, key, time, coverage and request', async () => {
    const created = now() - 5;
    const report = await verifyReceipt(receipt({ params: usualParams(created) }), JWKS);
    expect(report.problems).to.deep.equal([]);
    expect(report).to.deep.include({ label: 'sig1', keyid: KEYID, covered: REQUIRED, request: `GET //watchcat.example${PATH}`, status: 200 });
    expect(report.created?.getTime()).to.equal(created * 1000);
    expect(report.key?.x).to.equal(x);
  });

  it('reports the request its signed components make, not the echo\'s spelling: an empty query (`?`) is signed as no query', async () => {
    // RFC 9421 (2.2.7): `@query` is `?` for `/p?` and `/p` alike, so the signature holds for either echo, and the report
    // may name only what it holds for (test/reliability/receipt-fuzz.test.ts found `POST //host/mcp?` reported as signed).
    for (const echo of [`${REQUEST_LINE}?`, REQUEST_LINE]) {
      const report = await reportOf({ headers: [TYPE_LINE, DIGEST_LINE, echo] });
      expect([report.problems, report.request], echo).to.deep.equal([[], `GET //watchcat.example${PATH}`]);
    }
  });

  it('refuses an answer without both signature fields, naming how to ask for one', async () => {
    const missing = 'the answer carries no signature (Signature-Input and Signature): ask for one with Accept-Signature';
    expect(await problemsOf({ signatureLines: [] })).to.deep.equal([missing]);
    expect(await problemsOf({ signatureLines: [`Signature-Input: sig1=(${REQUIRED.join(' ')})${usualParams()}`] })).to.deep.equal([missing]);
    expect(await problemsOf({ signatureLines: ['Signature: sig1=:AAAA:'] })).to.deep.equal([missing]);
  });

  it('refuses signature fields that are not structured dictionaries, or hold no signature to check', async () => {
    expect(await problemsOf({ signatureLines: ['Signature-Input: sig1=(', 'Signature: sig1=:AAAA:'] }))
      .to.deep.equal(['Signature-Input or Signature is not a structured dictionary (RFC 8941)']);
    expect(await problemsOf({ signatureLines: ['Signature-Input: sig1=("@status")', 'Signature: sig1=:A:A'] }))
      .to.deep.equal(['Signature-Input or Signature is not a structured dictionary (RFC 8941)']);
    expect(await problemsOf({ signatureLines: ['Signature-Input: sig1=1', 'Signature: sig1=:AAAA:'] })).to.deep.equal(['Signature-Input holds no signature']);
    const input = `Signature-Input: sig1=(${REQUIRED.join(' ')})${usualParams()}`;
    for (const signature of ['Signature: sig2=:AAAA:', 'Signature: sig1=(:AAAA:)', 'Signature: sig1=1']) {
      expect(await problemsOf({ signatureLines: [input, signature] }), signature).to.deep.equal(['Signature has no value for sig1']);
    }
  });

  it('names a missing created time, another alg and a missing keyid; a created ahead of this clock holds, and is told', async () => {
    expect(await problemsOf({ params: `;keyid="${KEYID}";alg="ed25519"` })).to.deep.equal(['the signature has no created time']);
    // A signer's clock is not the verifier's: an answer fresh from a server whose clock runs an hour ahead holds.
    const ahead = await reportOf({ params: usualParams(now() + 3_600) });
    expect(ahead.problems).to.deep.equal([]);
    expect(ahead.aheadSeconds).to.be.within(3_598, 3_600);
    expect((await reportOf({ params: usualParams(now() - 5) })).aheadSeconds, 'one in the past').to.equal(undefined);
    // Of this very second: not ahead (this clock read late in the second it was signed in, so that no second passes).
    const signedAt = now();
    const thisSecond = receipt({ params: usualParams(signedAt) });
    const realNow = Date.now;
    Date.now = () => signedAt * 1000 + 999;
    try {
      expect((await verifyReceipt(thisSecond, JWKS)).aheadSeconds, 'one of this second').to.equal(undefined);
    } finally {
      Date.now = realNow;
    }
    // Every check runs: the signature is not checked under another algorithm either.
    expect(await problemsOf({ params: `;created=${now() - 5};keyid="${KEYID}";alg="rsa-pss-sha512"` }))
      .to.deep.equal(['the signature says alg="rsa-pss-sha512", not "ed25519"', 'the signature cannot be checked: Unsupported key algorithm']);
    expect(await problemsOf({ params: `;created=${now() - 5};keyid="${KEYID}"` }), 'no alg: ed25519 by the key').to.deep.equal([]);
    expect(await problemsOf({ params: `;created=${now() - 5};alg="ed25519"` })).to.deep.equal(['the signature names no keyid']);
  });

  it('names a compromised key whether or not the signature says when it was made', async () => {
    const revokedAt = now() - 60;
    const compromised = { keys: [{ ...JWKS.keys[0]!, revoked: { revoked_at: revokedAt, reason: 'compromised' as const } }] };
    const void_ = `key ${KEYID} is marked compromised (since ${new Date(revokedAt * 1000).toISOString()}): every answer it signed is void`;
    expect((await verifyReceipt(receipt(), compromised)).problems).to.deep.equal([void_]);
    expect((await verifyReceipt(receipt({ params: `;keyid="${KEYID}";alg="ed25519"` }), compromised)).problems)
      .to.deep.equal(['the signature has no created time', void_]);
  });

  it('reports the signed data position and age, refuses them when not canonical integers, and ignores them unsigned', async () => {
    const signed = await verifyReceipt(receipt({
      extra: [['X-Read-Model-Position: 42', '"x-read-model-position"', '42'], ['X-Data-Age: 0', '"x-data-age"', '0']],
    }), JWKS);
    expect(signed.problems).to.deep.equal([]);
    expect({ position: signed.position, dataAge: signed.dataAge }).to.deep.equal({ position: 42, dataAge: 0 });
    expect(await problemsOf({ extra: [['X-Read-Model-Position: 042', '"x-read-model-position"', '042']] }))
      .to.deep.equal(['the signed x-read-model-position is not a non-negative integer: 042']);
    expect(await problemsOf({ extra: [['X-Data-Age: 1 s', '"x-data-age"', '1 s']] }))
      .to.deep.equal(['the signed x-data-age is not a non-negative integer: 1 s']);
    const unsigned = await verifyReceipt(receipt({
      headers: [...USUAL_HEADERS, 'X-Read-Model-Position: 7'],
    }), JWKS);
    expect(unsigned.problems).to.deep.equal([]);
    expect(unsigned.position, 'a position the signature does not cover is not reported').to.equal(undefined);
  });

  it('names a missing, malformed or digest-less Content-Digest', async () => {
    const request = REQUEST_LINE;
    const withDigest = (digest: string | undefined) => [TYPE_LINE, ...(digest === undefined ? [] : [`Content-Digest: ${digest}`]), request];
    expect(await problemsOf({ headers: withDigest(undefined) })).to.include('the answer has no Content-Digest');
    expect(await problemsOf({ headers: withDigest('sha-256=:AA') })).to.include('Content-Digest is not a structured dictionary (RFC 8941)');
    expect(await problemsOf({ headers: withDigest('sha-512=:AAAA:') })).to.include('Content-Digest has no sha-256 digest');
    expect(await problemsOf({ headers: withDigest('sha-256=(:AAAA:)') })).to.include('Content-Digest has no sha-256 digest');
    expect(await problemsOf({ headers: withDigest('sha-256=1') })).to.include('Content-Digest has no sha-256 digest');
    expect(await problemsOf({ headers: withDigest('sha-256=:AAAA:') })).to.include(`the body does not match its Content-Digest (sha-256 of the ${BODY.length} bytes saved differs)`);
  });

  it('names a signature over request components without the echoed request, and a covered header the answer lacks', async () => {
    expect(await problemsOf({ headers: [TYPE_LINE, DIGEST_LINE] }))
      .to.deep.equal(['the signature covers request components but the answer has no usable Signed-Request header']);
    expect(await problemsOf({ extra: [['X-Other: 1', '"x-other"', '1']], headers: USUAL_HEADERS }))
      .to.deep.equal([]);
    const lacking = receipt({ extra: [['X-Other: 1', '"x-other"', '1']] });
    delete lacking.headers['x-other'];
    expect((await verifyReceipt(lacking, JWKS)).problems).to.deep.equal(['the covered header x-other is missing from the answer']);
  });

  it('excuses only Content-Type in an answer without one: every other component a receipt needs is still required', async () => {
    const headers = [DIGEST_LINE, REQUEST_LINE];
    const covered = REQUIRED.filter((identifier) => identifier !== '"content-type"' && identifier !== '"@status"');
    expect(await problemsOf({ covered, headers })).to.deep.equal(['the signature does not cover "@status", which a receipt must']);
  });

  it('checks the signature alone over response components, naming each request component it fails to cover', async () => {
    const covered = REQUIRED.filter((identifier) => !identifier.endsWith(';req'));
    const report = await verifyReceipt(receipt({ covered, headers: [TYPE_LINE, DIGEST_LINE] }), JWKS);
    expect(report.problems).to.deep.equal(REQUIRED.filter((identifier) => identifier.endsWith(';req'))
      .map((identifier) => `the signature does not cover ${identifier}, which a receipt must`));
    expect(report.request).to.equal(undefined);
  });

  it('reports no request from a Signed-Request header it cannot read', async () => {
    const report = await verifyReceipt(receipt({
      headers: [TYPE_LINE, DIGEST_LINE, 'Signed-Request: fetch it please'],
    }), JWKS);
    expect(report.problems).to.deep.equal(['the signature covers request components but the answer has no usable Signed-Request header']);
    expect(report.request).to.equal(undefined);
  });

  it('reads a field sent on several lines as one, joined with a comma (RFC 9110 section 5.3, RFC 9421 section 2.1)', async () => {
    const sha512 = `sha-512=:${Buffer.alloc(64, 1).toString('base64')}:`;
    const joined = `${sha512}, ${contentDigest(BODY)}`;
    const headers = [TYPE_LINE, `Content-Digest: ${sha512}`, DIGEST_LINE, REQUEST_LINE];
    expect(await problemsOf({ headers, signed: { '"content-digest"': joined } })).to.deep.equal([]);
  });

  it('checks the first signature only: a second one beside it neither makes nor breaks the receipt', async () => {
    const good = receipt();
    const input = good.headers['signature-input']![0]!.slice('sig1='.length);
    const value = good.headers['signature']![0]!.slice('sig1='.length);
    const forged = `:${Buffer.alloc(64, 7).toString('base64')}:`;
    const withTwo = (first: string, second: string) => {
      const both = receipt();
      both.headers['signature-input'] = [`sig1=${input}, sig2=${input}`];
      both.headers['signature'] = [`sig1=${first}, sig2=${second}`];
      return verifyReceipt(both, JWKS);
    };
    expect((await withTwo(value, forged)).problems, 'a forged second signature').to.deep.equal([]);
    expect((await withTwo(forged, value)).problems, 'a forged first signature, a good second one').to.deep.equal([
      `the signature does not match: the status or a covered field (${REQUIRED.join(' ')}) differs from what was signed`,
    ]);
  });

  it('names a covered data field the answer lacks once, as missing, not as a malformed value', async () => {
    const lacking = receipt({ extra: [['X-Data-Age: 0', '"x-data-age"', '0']] });
    delete lacking.headers['x-data-age'];
    expect((await verifyReceipt(lacking, JWKS)).problems).to.deep.equal(['the covered header x-data-age is missing from the answer']);
  });

  it('requires no Content-Type of an answer that has none (a 304, an empty answer)', async () => {
    const covered = REQUIRED.filter((identifier) => identifier !== '"content-type"');
    const headers = [DIGEST_LINE, REQUEST_LINE];
    expect(await problemsOf({ covered, headers })).to.deep.equal([]);
    expect(await problemsOf({ covered }), 'with a Content-Type, it must be covered')
      .to.deep.equal(['the signature does not cover "content-type", which a receipt must']);
  });
});
