/**
 * Response signing keys for tests: a fresh Ed25519 key given as RESPONSE_SIGNING_KEY, with its history in
 * RESPONSE_SIGNING_KEYS, as a deployment at scale does.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { loadSigningKeys, type ResponseSigningKeys } from '../../read-api/signing/signing-keys.ts';

export const newSigningKeyPem = (): string =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

/** The public JWK of a PEM private key, as a history lists it, with the dates given. */
export function historyEntry(pem: string, dates: { nbf: number; exp?: number; revoked?: { revoked_at: number; reason: 'compromised' } }) {
  const { x } = createPublicKey(pem).export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: String(x), ...dates };
}

/** RESPONSE_SIGNING_KEYS listing `pem` alone, in use since an hour ago. */
export const historyOf = (pem: string): string => JSON.stringify({ keys: [historyEntry(pem, { nbf: Math.floor(Date.now() / 1000) - 3600 })] });

export function testSigningKeys(pem = newSigningKeyPem(), history = historyOf(pem)): Promise<ResponseSigningKeys> {
  return loadSigningKeys({ DATA_DIR: '/nonexistent', RESPONSE_SIGNING_KEY: pem, RESPONSE_SIGNING_KEYS: history });
}
