/**
 * The public key list (shared/signing/jwk-set.ts): what it accepts, what it refuses and with which message (no key
 * material quoted), and the public JWK it publishes for a key. Expected values from RFC 8037 (appendix A: a key and
 * its RFC 7638 thumbprint) and RFC 7517/8037 (`alg` EdDSA, `use` sig); the validation messages' wording past the
 * path is ajv's, a library apart from the service.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { expect } from 'chai';
import { parseJwkSet, publicJwk } from '../../../shared/signing/jwk-set.ts';

/** RFC 8037, appendix A.1 and A.3. */
const RFC8037 = { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: RFC8037.x };

const refusal = (text: string): string => {
  try {
    parseJwkSet(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('JWK Set of Ed25519 public keys', () => {
  it('reads a set of public keys with their history members', () => {
    const key = { ...PUBLIC, kid: RFC8037_THUMBPRINT, alg: 'EdDSA', use: 'sig', nbf: 1_700_000_000, exp: 1_800_000_000 };
    expect(parseJwkSet(JSON.stringify({ keys: [key, PUBLIC] }))).to.deep.equal({ keys: [key, PUBLIC] });
  });

  it('refuses a text that is not JSON, saying only that', () => {
    expect(refusal('{"keys": [')).to.equal('not JSON');
  });

  it('refuses a set holding a private key, naming the member and not its value', () => {
    const message = refusal(JSON.stringify({ keys: [PUBLIC, RFC8037] }));
    expect(message).to.equal('it holds a private key (a "d" member); list public keys only');
    expect(message).to.not.include(RFC8037.d);
  });

  it('refuses keys that are not objects as a set that is not one, not with a TypeError', () => {
    expect(refusal(JSON.stringify({ keys: ['d', null] }))).to.equal('not a JWK Set of Ed25519 public keys (/keys/0 must be object; /keys/1 must be object)');
  });

  it('names every problem with its place, the set itself as "set"', () => {
    expect(refusal('{}')).to.equal('not a JWK Set of Ed25519 public keys (set must have required property \'keys\')');
    expect(refusal(JSON.stringify({ keys: [{ ...PUBLIC, crv: 'X25519', alg: 'ES256' }] })))
      .to.equal('not a JWK Set of Ed25519 public keys (/keys/0/crv must be equal to constant; /keys/0/alg must be equal to constant)');
  });

  it('publishes a key, from its private or its public half, named by its RFC 7638 thumbprint, for EdDSA signatures', async () => {
    const privateKey = createPrivateKey({ key: RFC8037, format: 'jwk' });
    const expected = { ...PUBLIC, kid: RFC8037_THUMBPRINT, alg: 'EdDSA', use: 'sig' };
    expect(await publicJwk(privateKey)).to.deep.equal(expected);
    expect(await publicJwk(createPublicKey(privateKey))).to.deep.equal(expected);
  });
});
