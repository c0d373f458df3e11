/**
 * `verifyReceipt` (services/receipt/verify-receipt.ts) at the edges of what a receipt may claim (CONTRACT.md,
 * "Signed answers"): a `created` in the future beyond a clock difference of a minute, a key's `nbf`..`exp` with only a
 * few minutes of rotation tolerated, and a `keyid` that must be the key's RFC 7638 thumbprint, never a `kid` the set
 * lists. Receipts are signed by the independent RFC 9421 code of test/support/rfc9421-by-hand.ts.
 */
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { parseSavedResponse } from '../../services/receipt/saved-response.ts';
import { verifyReceipt } from '../../services/receipt/verify-receipt.ts';
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

  /** The problems found in a receipt signed at `created` under `named`, checked against `keys`. */
  async function problems(created: number, keys: Ed25519PublicJwk[], named = keyid): Promise<string[]> {
    const params = `(${COVERED.join(' ')});created=${created};keyid="${named}";alg="ed25519"`;
    const signature = signBase(signatureBase(COVERED, VALUES, params), privateKey).toString('base64');
    const saved = [
      'HTTP/1.1 200 OK', 'Content-Type: application/json', `Content-Digest: ${contentDigest(BODY)}`,
      'Signed-Request: GET //watchcat.example/api/public/verify/AUR-0001', `Signature-Input: sig1=${params}`, `Signature: sig1=:${signature}:`, '', BODY,
    ].join('\r\n');
    return (await verifyReceipt(parseSavedResponse(Buffer.from(saved, 'latin1')), { keys })).problems;
  }
  const now = () => Math.floor(Date.now() / 1000);

  it('takes a created up to half a minute ahead of this clock, and refuses one two minutes ahead as signed in the future', async () => {
    expect(await problems(now() + 30, [key])).to.deep.equal([]);
    const ahead = now() + 120;
    // The signature library adds its own refusal of the date (worded "too old"); the one this check owes is named.
    expect(await problems(ahead, [key])).to.include(`the answer says it was signed at ${at(ahead)}, in the future`);
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
});
