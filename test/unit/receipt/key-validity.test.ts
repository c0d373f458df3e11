/**
 * Whether a key of the history vouches for an answer by its `created` (shared/signing/key-validity.ts): README.md,
 * "receipt verify", allows 5 minutes of tolerance before its `nbf` and after its `exp`. Times are whole Unix seconds,
 * so the bounds themselves are dates an answer can carry: at 5 minutes it is vouched for, a second past it is not.
 */
import { expect } from 'chai';
import { keyValidityProblem } from '../../../shared/signing/key-validity.ts';
import type { Ed25519PublicJwk } from '../../../shared/signing/jwk-set.ts';

const NBF = 1_767_225_600;
const EXP = NBF + 86_400;
const key = { kty: 'OKP', crv: 'Ed25519', x: 'x', nbf: NBF, exp: EXP } as Ed25519PublicJwk;

describe('a key vouches for an answer signed within its dates, 5 minutes of tolerance on each side', () => {
  it('vouches for one signed 5 minutes before its nbf or after its exp, to the second, and not one second further', () => {
    expect(keyValidityProblem(key, 'k1', NBF - 300), '5 minutes before nbf').to.equal(undefined);
    expect(keyValidityProblem(key, 'k1', EXP + 300), '5 minutes after exp').to.equal(undefined);
    expect(keyValidityProblem(key, 'k1', NBF - 301)).to.equal('key k1 began signing at 2026-01-01T00:00:00.000Z, yet the answer says it was signed at 2025-12-31T23:54:59.000Z');
    expect(keyValidityProblem(key, 'k1', EXP + 301)).to.equal('expired key k1: retired at 2026-01-02T00:00:00.000Z, yet the answer says it was signed at 2026-01-02T00:05:01.000Z');
  });
});
