/**
 * C2SP signed-note keys of an Ed25519 key, written out here from the specification (and Go's note package), so that
 * tests do not take their expected keys from the code under test: a verifier key is
 * `<name>+<hex of the first 4 bytes of SHA-256(name || "\n" || 0x01 || public key)>+<base64(0x01 || public key)>`;
 * a signer key, as Go's note.NewSigner reads it, is `PRIVATE+KEY+<name>+<same hex>+<base64(0x01 || seed)>`.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

const jwkOf = (key: KeyObject) => key.export({ format: 'jwk' });

function keyHash(name: string, privateKey: KeyObject): string {
  const raw = Buffer.from(String(jwkOf(createPublicKey(privateKey)).x), 'base64url');
  return createHash('sha256').update(`${name}\n`).update(Buffer.concat([Buffer.of(1), raw])).digest().subarray(0, 4).toString('hex');
}

export function specVerifierKey(name: string, privateKey: KeyObject): string {
  const raw = Buffer.from(String(jwkOf(createPublicKey(privateKey)).x), 'base64url');
  return `${name}+${keyHash(name, privateKey)}+${Buffer.concat([Buffer.of(1), raw]).toString('base64')}`;
}

export function goSignerKey(name: string, privateKey: KeyObject): string {
  const seed = Buffer.from(String(jwkOf(privateKey).d), 'base64url');
  return `PRIVATE+KEY+${name}+${keyHash(name, privateKey)}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}`;
}
