/**
 * C2SP signed-note with Ed25519 (the format of Go's golang.org/x/mod/sumdb/note): a text ending in a newline, a
 * blank line, then one line per signature, `— <name> <base64(key id || signature)>`. The key id is the first four
 * bytes (big-endian) of SHA-256(name || "\n" || 0x01 || public key), 0x01 naming the algorithm.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** The signature types of C2SP signed-note that are read here: a log's Ed25519 key, a witness's timestamped Ed25519 key. */
const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

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

/** SHA-256(name || "\n" || type || public key)[:4]. */
export function keyId(name: string, publicKey: Uint8Array, type = ED25519): Buffer {
  checkName(name);
  return createHash('sha256').update(name).update('\n').update(Uint8Array.of(type)).update(publicKey).digest().subarray(0, 4);
}

/** The verifier key in the form `note.NewVerifier` reads: `<name>+<8 hex key id>+<base64(type || key)>`. */
export function verifierKey(name: string, key: KeyObject, type: number = ED25519): string {
  const publicKey = rawPublicKey(key);
  return `${name}+${keyId(name, publicKey, type).toString('hex')}+${Buffer.concat([Uint8Array.of(type), publicKey]).toString('base64')}`;
}

/**
 * Signs `text` (which must end in a newline) as a note signed by `name`, one signature line per key in the order
 * given (the current key first, then a key co-signing during a rotation). Ed25519 signatures are deterministic, so
 * every process holding the same keys signs the same bytes.
 */
export function signNote(text: string, name: string, ...keys: [KeyObject, ...KeyObject[]]): string {
  if (!text.endsWith('\n')) throw new NoteError('a note text must end in a newline');
  const lines = keys.map((privateKey) => {
    const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
    return signatureLine({ name, id: keyId(name, rawPublicKey(privateKey)), signature });
  });
  return `${text}\n${lines.join('')}`;
}

/** A verifier key, read. */
export interface Verifier { name: string; id: Buffer; key: KeyObject }

/** The name and key of a log's verifier key string (type 0x01), or a NoteError saying why it is not one. */
export const parseVerifierKey = (text: string): Verifier => parseTypedVerifierKey(text, ED25519);

/** The name and key of a verifier key string of signature `type`, or a NoteError saying why it is not one. */
export function parseTypedVerifierKey(text: string, type: number): Verifier {
  // The name holds no `+`; the base64 key may.
  const [name = '', idHex = '', ...pieces] = text.trim().split('+');
  const encoded = pieces.join('+');
  const raw = Buffer.from(encoded, 'base64');
  if (!/^[0-9a-f]{8}$/.test(idHex) || raw.length !== 33 || raw[0] !== type || raw.toString('base64') !== encoded) {
    throw new NoteError(`not a verifier key: expected <name>+<8 hex digits>+<base64 of 0x0${type} and an Ed25519 key>`);
  }
  const publicKey = raw.subarray(1);
  if (!keyId(name, publicKey, type).equals(Buffer.from(idHex, 'hex'))) throw new NoteError('verifier key: its key id does not match its name and key');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk' });
  return { name, id: Buffer.from(idHex, 'hex'), key };
}

/** One signature line of a note: the signer's name, its key id, the signature. */
export interface NoteSignature { name: string; id: Buffer; signature: Buffer }

/** The most signature lines a note may carry, as Go's note.Open reads one (golang.org/x/mod/sumdb/note). */
const MAX_SIGNATURES = 100;

/** A note's text and its signature lines, or a NoteError when it is not a signed note. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  const split = note.lastIndexOf('\n\n');
  if (split === -1 || !note.endsWith('\n')) throw new NoteError('not a signed note: no blank line before its signatures');
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw new NoteError(`not a signed note: more than ${MAX_SIGNATURES} signatures`);
  const signatures = lines.map((line) => {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
    if (!match) throw new NoteError(`not a signature line: ${JSON.stringify(line)}`);
    const bytes = Buffer.from(match[2]!, 'base64');
    return { name: match[1]!, id: bytes.subarray(0, 4), signature: bytes.subarray(4) };
  });
  return { text: note.slice(0, split + 1), signatures };
}

/**
 * The text of a signed note: all before its last blank line, as Go's note.Open cuts it, so a text holding a blank
 * line reads whole (and is then no checkpoint: checkpoint.ts). Every reader of a note's text asks here, never cuts
 * at a blank line of its own; a NoteError when `note` is not a signed note.
 */
export const noteText = (note: string): string => parseNote(note).text;

/** A signature as its note line, newline included. */
export const signatureLine = ({ name, id, signature }: NoteSignature): string =>
  `\u2014 ${name} ${Buffer.concat([id, signature]).toString('base64')}\n`;

/** Whether `signature` is by `verifier`'s name and key id (whether it verifies is another question). */
export const isBy = (signature: NoteSignature, verifier: Verifier): boolean =>
  signature.name === verifier.name && signature.id.equals(verifier.id);

/** Whether `verifier` made `signature` over `text`. */
export const verifies = (text: string, signature: NoteSignature, verifier: Verifier): boolean =>
  isBy(signature, verifier) && verify(null, Buffer.from(text, 'utf8'), verifier.key, signature.signature);

/** The text of a note that `verifierKeyText` signed; throws a NoteError saying what does not hold. */
export function openNote(note: string, verifierKeyText: string): string {
  const verifier = parseVerifierKey(verifierKeyText);
  const { text, signatures } = parseNote(note);
  const own = signatures.find((signature) => isBy(signature, verifier));
  if (own === undefined) throw new NoteError(`the note carries no signature of ${verifier.name} with key id ${verifier.id.toString('hex')}`);
  if (!verifies(text, own, verifier)) throw new NoteError(`the signature of ${verifier.name} does not match the note`);
  return text;
}
