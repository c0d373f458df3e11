/** Response signing keys for tests: a fresh Ed25519 key given as RESPONSE_SIGNING_KEY, as a deployment at scale does. */
import { generateKeyPairSync } from 'node:crypto';
import { loadSigningKeys, type ResponseSigningKeys } from '../../read-api/signing/signing-keys.ts';

export const newSigningKeyPem = (): string =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

export function testSigningKeys(pem = newSigningKeyPem(), retired?: string): Promise<ResponseSigningKeys> {
  return loadSigningKeys({ DATA_DIR: '/nonexistent', RESPONSE_SIGNING_KEY: pem, ...(retired ? { RESPONSE_SIGNING_RETIRED_KEYS: retired } : {}) });
}
