/**
 * C2SP signed-note with Ed25519 (the format of Go's golang.org/x/mod/sumdb/note): a text ending in a newline, a
 * blank line, then one line per signature, `— <name> <base64(key id || signature)>`. The key id is the first four
 * bytes (big-endian) of SHA-256(name || "\n" || 0x01 || public key), 0x01 naming the algorithm.
 */
import { createHash, createPublicKey, sign, type KeyObject } from 'node:crypto';

const ED25519 = 0x01;

export class NoteError extends Error {}

/** The raw 32 bytes of an Ed25519 key (public, or the public half of a private one). */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new NoteError('a signed note needs an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url');
}

function checkName(name: string): void {
  // Go's note package refuses names that are empty or hold a space, a plus or a Unicode space.
  if (name === '' || /[\s+]/u.test(name)) throw new NoteError(`note signer name ${JSON.stringify(name)} must not be empty nor hold spaces or "+"`);
}

export function keyId(name: string, publicKey: Uint8Array): Buffer {
  checkName(name);
  return createHash('sha256').update(name).update('\n').update(Uint8Array.of(ED25519)).update(publicKey).digest().subarray(0, 4);
}

/** The verifier key in the form `note.NewVerifier` reads: `<name>+<8 hex key id>+<base64(0x01 || key)>`. */
export function verifierKey(name: string, key: KeyObject): string {
  const publicKey = rawPublicKey(key);
  return `${name}+${keyId(name, publicKey).toString('hex')}+${Buffer.concat([Uint8Array.of(ED25519), publicKey]).toString('base64')}`;
}

/** Signs `text` (which must end in a newline) as a note signed by `name`. */
export function signNote(text: string, name: string, privateKey: KeyObject): string {
  if (!text.endsWith('\n')) throw new NoteError('a note text must end in a newline');
  const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
  const id = keyId(name, rawPublicKey(privateKey));
  return `${text}\n\u2014 ${name} ${Buffer.concat([id, signature]).toString('base64')}\n`;
}
