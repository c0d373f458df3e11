/**
 * `verifyReceipt` (services/audit/receipt/verify-receipt.ts) at the edges of what a receipt may claim (docs/api.md,
 * "Signed answers"): a `created` in the future beyond a clock difference of a minute, a key's `nbf`..`exp` with only a
 * few minutes of rotation tolerated, and a `keyid` that must be the key's RFC 7638 thumbprint, never a `kid` the set
 * lists. Receipts are signed by the independent RFC 9421 code of test/support/rfc9421-by-hand.ts.
 */
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { parseSavedResponse } from '../../services/audit/receipt/saved-response.ts';
import { verifyReceipt, type ReceiptReport } from '../../services/audit/receipt/verify-receipt.ts';
import type { Ed25519PublicJwk } from '../../shared/signing/jwk-set.ts';
import { contentDigest, signatureBase, signBase, thumbprintByHand } from '../support/rfc9421-by-hand.ts';

const BODY = '{"serial":"AUR-0001","verification_status":"STOLEN"}';
const COVERED = ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req'];
const VALUES: Record<string, string> = {
  '"@status"': '200', '"content-type"': 'application/json', '"content-digest"': contentDigest(BODY),
  '"@method";req': 'GET', '"@path";req': '/api/public/verify/AUR-0001', '"@query";req': '?', '"@authority";req': 'watchcat.example',
};
const at = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('receipt verification: dates and key identity', () => {
  let privateKey: KeyObject;
  let key: Ed25519PublicJwk;
  let keyid: string;
  beforeEach(() => {
    const pair = generateKeyPairSync('ed25519');
    privateKey = pair.privateKey;
    key = { kty: 'OKP', crv: 'Ed25519', x: String(pair.publicKey.export({ format: 'jwk' }).x) };
    keyid = thumbprintByHand(key.x);
  });

  /** The problems found in a receipt signed with these signature parameters, its header lines changed by `edit`. */
  async function reportOf(
    params: string, keys: Ed25519PublicJwk[], edit: (lines: string[]) => string[] = (lines) => lines, covered = COVERED,
  ): Promise<ReceiptReport> {
    const signature = signBase(signatureBase(covered, VALUES, params), privateKey).toString('base64');
    const head = [
      'Content-Type: application/json', `Content-Digest: ${contentDigest(BODY)}`,
      'Signed-Request: GET //watchcat.example/api/public/verify/AUR-0001', `Signature-Input: sig1=${params}`, `Signature: sig1=:${signature}:`,
    ];
    const saved = ['HTTP/1.1 200 OK', ...edit(head), '', BODY].join('\r\n');
    return verifyReceipt(parseSavedResponse(Buffer.from(saved, 'latin1')), { keys });
  }
  const problemsOf = async (...args: Parameters<typeof reportOf>) => (await reportOf(...args)).problems;
  /** The problems found in a receipt signed at `created` under `named`, checked against `keys`. */
  const problems = (created: number, keys: Ed25519PublicJwk[], named = keyid) =>
    problemsOf(`(${COVERED.join(' ')});created=${created};keyid="${named}";alg="ed25519"`, keys);
  const now = () => Math.floor(Date.now() / 1000);

  it('reports what a receipt that holds says: when, by which key, over what, for which request', async () => {
    const created = now() - 5;
    const report = await reportOf(`(${COVERED.join(' ')});created=${created};keyid="${keyid}";alg="ed25519"`, [key]);
    expect(report).to.deep.include({
      problems: [], label: 'sig1', keyid, key, created: new Date(created * 1000), covered: COVERED,
      request: 'GET //watchcat.example/api/public/verify/AUR-0001', status: 200, bodyBytes: Buffer.byteLength(BODY),
    });
  });

  it('takes a created ahead of this clock, two minutes or a day, and says how far: the signer\'s clock is not this one', async () => {
    for (const seconds of [120, 86_400]) {
      const report = await reportOf(`(${COVERED.join(' ')});created=${now() + seconds};keyid="${keyid}";alg="ed25519"`, [key]);
      expect(report.problems, `${seconds} s ahead`).to.deep.equal([]);
      expect(report.aheadSeconds, `${seconds} s ahead`).to.be.within(seconds - 2, seconds);
    }
  });

  it('takes a created a few minutes outside the key\'s nbf..exp (a rotation), and refuses one ten minutes outside', async () => {
    const created = now() - 3600;
    expect(await problems(created, [{ ...key, nbf: created + 240 }]), 'begun 4 minutes after').to.deep.equal([]);
    expect(await problems(created, [{ ...key, nbf: created - 7200, exp: created - 240 }]), 'retired 4 minutes before').to.deep.equal([]);
    expect(await problems(created, [{ ...key, nbf: created + 600 }])).to.deep.equal([
      `key ${keyid} began signing at ${at(created + 600)}, yet the answer says it was signed at ${at(created)}`,
    ]);
    expect(await problems(created, [{ ...key, nbf: created - 7200, exp: created - 600 }])).to.deep.equal([
      `expired key ${keyid}: retired at ${at(created - 600)}, yet the answer says it was signed at ${at(created)}`,
    ]);
  });

  it('finds the key by its computed thumbprint: a kid the set lists for another key is not trusted', async () => {
    const { publicKey: other } = generateKeyPairSync('ed25519');
    const otherId = thumbprintByHand(String(other.export({ format: 'jwk' }).x));
    const created = now() - 5;
    // The signing key listed under another key's thumbprint, and under a made-up name.
    expect(await problems(created, [{ ...key, kid: otherId }], otherId)).to.deep.equal([`unknown key ${otherId}: it is not in the key set`]);
    expect(await problems(created, [{ ...key, kid: 'current' }], 'current')).to.deep.equal(['unknown key current: it is not in the key set']);
    // Listed under a wrong kid, it is still found by what it is.
    expect(await problems(created, [{ ...key, kid: 'current' }])).to.deep.equal([]);
  });

  describe('a receipt that cannot hold, named for what is wrong', () => {
    const covered = `(${COVERED.join(' ')})`;
    const replace = (name: string, line: string | undefined) => (lines: string[]) =>
      lines.flatMap((l) => (l.toLowerCase().startsWith(`${name.toLowerCase()}:`) ? (line === undefined ? [] : [line]) : [l]));

    it('a signature without created, without keyid, or with another alg', async () => {
      const created = now() - 5;
      expect(await problemsOf(`${covered};keyid="${keyid}";alg="ed25519"`, [key])).to.include('the signature has no created time');
      expect(await problemsOf(`${covered};created=${created};alg="ed25519"`, [key])).to.deep.equal(['the signature names no keyid']);
      expect(await problemsOf(`${covered};created=${created};keyid="${keyid}";alg="rsa-pss-sha512"`, [key]))
        .to.include('the signature says alg="rsa-pss-sha512", not "ed25519"');
      expect(await problemsOf(`${covered};created=${created};keyid="${keyid}"`, [key]), 'alg left out').to.deep.equal([]);
    });

    // A crafted receipt: RFC 9421 (2.3) makes `created` an Integer, and RFC 8941 integers reach 15 digits, far past the
    // dates JavaScript can write (8.64e12 seconds either side of 1970). On main at 6a31782 the check threw
    // `RangeError: Invalid time value` instead of naming the problem (the CLI said "failed: Invalid time value").
    it('a created that is no time: beyond the dates a clock can write, either side, or not whole seconds', async () => {
      const nbf = now() - 3600;
      for (const created of ['999999999999999', '-999999999999999', '8640000000001', '1.5']) {
        const found = await problemsOf(`${covered};created=${created};keyid="${keyid}";alg="ed25519"`, [{ ...key, nbf }]);
        expect(found, created).to.include(`the signature's created ${created} is no time: RFC 9421 asks for whole seconds since 1970`);
      }
    });

    it('Signature-Input or Signature missing, unreadable, or without the signature named', async () => {
      const params = `${covered};created=${now() - 5};keyid="${keyid}";alg="ed25519"`;
      const unsigned = 'the answer carries no signature (Signature-Input and Signature): ask for one with Accept-Signature';
      expect(await problemsOf(params, [key], replace('Signature', undefined))).to.deep.equal([unsigned]);
      expect(await problemsOf(params, [key], replace('Signature-Input', undefined))).to.deep.equal([unsigned]);
      expect(await problemsOf(params, [key], replace('Signature-Input', 'Signature-Input: sig1=(((')))
        .to.deep.equal(['Signature-Input or Signature is not a structured dictionary (RFC 8941)']);
      expect(await problemsOf(params, [key], replace('Signature-Input', 'Signature-Input: sig1=1')))
        .to.deep.equal(['Signature-Input holds no signature']);
      expect(await problemsOf(params, [key], replace('Signature', 'Signature: sig2=:AAAA:')))
        .to.deep.equal(['Signature has no value for sig1']);
    });

    // Mutation survivor of issue 31: the library's reason was dropped, leaving the auditor an empty problem.
    it('a covered component the RFC 9421 library cannot derive: the problem gives the reason the library gave', async () => {
      const withFoo = [...COVERED, '"@foo"'];
      VALUES['"@foo"'] = 'x';
      try {
        const found = await problemsOf(`(${withFoo.join(' ')});created=${now() - 5};keyid="${keyid}";alg="ed25519"`, [key], (lines) => lines, withFoo);
        expect(found).to.have.length(1);
        expect(found[0]).to.match(/^the signature cannot be checked: .*"@foo"/);
      } finally {
        delete VALUES['"@foo"'];
      }
    });

    it('an answer without Content-Type need not cover it; one with it must', async () => {
      const withoutType = COVERED.filter((identifier) => identifier !== '"content-type"');
      const params = `(${withoutType.join(' ')});created=${now() - 5};keyid="${keyid}";alg="ed25519"`;
      expect(await problemsOf(params, [key], replace('Content-Type', undefined), withoutType)).to.deep.equal([]);
      const neither = withoutType.filter((identifier) => identifier !== '"@status"');
      expect(await problemsOf(`(${neither.join(' ')});created=${now() - 5};keyid="${keyid}";alg="ed25519"`, [key], replace('Content-Type', undefined), neither))
        .to.deep.equal(['the signature does not cover "@status", which a receipt must']);
      expect(await problemsOf(params, [key], (lines) => lines, withoutType))
        .to.deep.equal(['the signature does not cover "content-type", which a receipt must']);
    });

    it('the body\'s digest missing, unreadable or of another algorithm, and the request echo missing', async () => {
      const params = `${covered};created=${now() - 5};keyid="${keyid}";alg="ed25519"`;
      expect(await problemsOf(params, [key], replace('Content-Digest', undefined))).to.include('the answer has no Content-Digest');
      expect(await problemsOf(params, [key], replace('Content-Digest', 'Content-Digest: ((')))
        .to.include('Content-Digest is not a structured dictionary (RFC 8941)');
      expect(await problemsOf(params, [key], replace('Content-Digest', 'Content-Digest: sha-512=:AAAA:')))
        .to.include('Content-Digest has no sha-256 digest');
      // A digest of the wrong length is a mismatch like any other, not a failure of the comparison.
      expect(await problemsOf(params, [key], replace('Content-Digest', 'Content-Digest: sha-256=:AAAA:')))
        .to.include(`the body does not match its Content-Digest (sha-256 of the ${Buffer.byteLength(BODY)} bytes saved differs)`);
      expect(await problemsOf(params, [key], replace('Signed-Request', undefined)))
        .to.deep.equal(['the signature covers request components but the answer has no usable Signed-Request header']);
      const unusable = await reportOf(params, [key], replace('Signed-Request', 'Signed-Request: nonsense'));
      expect(unusable.problems).to.deep.equal(['the signature covers request components but the answer has no usable Signed-Request header']);
      expect(unusable.request, 'an echo it cannot read is not reported as the request').to.equal(undefined);
    });
  });
});
