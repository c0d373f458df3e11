/**
 * C2SP signed-note with Ed25519 (the format of Go's golang.org/x/mod/sumdb/note): a text ending in a newline, a
 * blank line, then one line per signature, `— <name> <base64(key id || signature)>`. The key id is the first four
 * bytes (big-endian) of SHA-256(name || "\n" || 0x01 || public key), 0x01 naming the algorithm.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

const ED25519 = 0x01;

export class NoteError extends Error {}

/** The raw 32 bytes of an Ed25519 key (public, or the public half of a private one). */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' });
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

/** The name and key of a verifier key string, or a NoteError saying why it is not one. */
function parseVerifierKey(text: string): { name: string; id: Buffer; key: KeyObject } {
  // The name holds no `+`; the base64 key may.
  const [name = '', idHex = '', ...pieces] = text.trim().split('+');
  const encoded = pieces.join('+');
  const raw = Buffer.from(encoded, 'base64');
  if (!/^[0-9a-f]{8}$/.test(idHex) || raw.length !== 33 || raw[0] !== ED25519 || raw.toString('base64') !== encoded) {
    throw new NoteError('not a verifier key: expected <name>+<8 hex digits>+<base64 of 0x01 and an Ed25519 key>');
  }
  const publicKey = raw.subarray(1);
  if (!keyId(name, publicKey).equals(Buffer.from(idHex, 'hex'))) throw new NoteError('verifier key: its key id does not match its name and key');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' });
  return { name, id: Buffer.from(idHex, 'hex'), key };
}

/** The text of a note that `verifierKeyText` signed; throws a NoteError saying what does not hold. */
export function openNote(note: string, verifierKeyText: string): string {
  const verifier = parseVerifierKey(verifierKeyText);
  const split = note.lastIndexOf('\n\n');
  if (split === -1 || !note.endsWith('\n')) throw new NoteError('not a signed note: no blank line before its signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  for (const line of lines) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
    if (!match) throw new NoteError(`not a signature line: ${JSON.stringify(line)}`);
    const signature = Buffer.from(match[2]!, 'base64');
    if (match[1] !== verifier.name || !signature.subarray(0, 4).equals(verifier.id)) continue;
    if (!verify(null, Buffer.from(text, 'utf8'), verifier.key, signature.subarray(4))) throw new NoteError(`the signature of ${verifier.name} does not match the note`);
    return text;
  }
  throw new NoteError(`the note carries no signature of ${verifier.name} with key id ${verifier.id.toString('hex')}`);
}
