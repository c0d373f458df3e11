/**
 * C2SP tlog-cosignature, the Ed25519 type (`cosignature/v1`): a witness's statement that, as of a time, the largest
 * consistent tree it saw of a log is the one a checkpoint names. It is a signed-note signature line whose key id is
 * SHA-256(name || "\n" || 0x04 || public key)[:4] and whose signature bytes are the timestamp (u64, big-endian) and
 * the Ed25519 signature over `cosignature/v1\ntime <timestamp>\n<checkpoint body>`. Go's note package, which knows
 * nothing of the type, ignores such lines: a checkpoint carrying them still opens with the log's key alone.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import {
  COSIGNATURE_V1, isBy, keyId, parseNote, parseTypedVerifierKey, rawPublicKey, signatureLine, verifierKey, type NoteSignature, type Verifier,
} from './signed-note.ts';

const TIMESTAMP_BYTES = 8;
const SIGNATURE_BYTES = 64;

/** The message a cosignature signs: the header line, the time line, then the checkpoint's body whole. */
const cosignedMessage = (body: string, time: number): Buffer =>
  Buffer.from(`cosignature/v1\ntime ${time}\n${body}`, 'utf8');

/** A witness's verifier key: `<name>+<key id>+<base64(0x04 || key)>`. */
export const cosignerKey = (name: string, key: KeyObject): string => verifierKey(name, key, COSIGNATURE_V1);

/** A witness's verifier key, read; a NoteError when it is not one of type 0x04. */
export const parseCosignerKey = (text: string): Verifier => parseTypedVerifierKey(text, COSIGNATURE_V1);

/** The signature line (newline included) by which `name` cosigns checkpoint `body` at `time` (Unix seconds). */
export function cosign(body: string, name: string, privateKey: KeyObject, time: number): string {
  if (!Number.isSafeInteger(time) || time <= 0) throw new RangeError('a cosignature needs a positive timestamp');
  const stamp = Buffer.alloc(TIMESTAMP_BYTES);
  stamp.writeBigUInt64BE(BigInt(time));
  const signature = sign(null, cosignedMessage(body, time), privateKey);
  return signatureLine({ name, id: keyId(name, rawPublicKey(privateKey), COSIGNATURE_V1), signature: Buffer.concat([stamp, signature]) });
}

/**
 * The time a cosignature by `verifier` states over checkpoint `body`, or undefined when the line is not by that
 * key or does not verify.
 */
export function cosignatureTime(body: string, signature: NoteSignature, verifier: Verifier): number | undefined {
  if (!isBy(signature, verifier) || signature.signature.length !== TIMESTAMP_BYTES + SIGNATURE_BYTES) return undefined;
  const stamp = signature.signature.readBigUInt64BE(0);
  // The spec caps it at 2^63 - 1; past 2^53 it is no time a witness could have signed at.
  if (stamp === 0n || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const time = Number(stamp);
  return verify(null, cosignedMessage(body, time), verifier.key, signature.signature.subarray(TIMESTAMP_BYTES)) ? time : undefined;
}

/** The lines of `note` (newline included) that are cosignatures of checkpoint `body` by one of `verifiers`, verified. */
function verifiedCosignatures(note: string, body: string, verifiers: readonly Verifier[]): string[] {
  return parseNote(note).signatures
    .filter((signature) => verifiers.some((verifier) => cosignatureTime(body, signature, verifier) !== undefined))
    .map(signatureLine);
}

/**
 * `note` with its lines named `logName` (the log's own signatures) and, of the others, only the cosignatures by
 * `verifiers` that verify over its text: what a signer keeps of a note it did not check line by line. A line by a
 * witness's key is judged as a cosignature even under the log's name: a witness may be named as the log it watches.
 */
export function withCheckedCosignatures(note: string, logName: string, verifiers: readonly Verifier[]): string {
  const { text, signatures } = parseNote(note);
  const own = signatures
    .filter((signature) => signature.name === logName && !verifiers.some((verifier) => isBy(signature, verifier)))
    .map(signatureLine);
  return withCosignatures(`${text}\n${own.join('')}`, verifiedCosignatures(note, text, verifiers));
}

/**
 * Two notes of one checkpoint (a signer's record of it, `kept`, and the store's), each with the other's cosignatures
 * by `verifiers` added that verify over its own text: the store's are taken in first, each in place of the kept line
 * of its witness, then the kept ones given back. Both then carry every cosignature that can be checked, and no line
 * that cannot is passed on. Notes of other texts are left as they are (no line of one verifies over the other).
 */
export function exchangedCosignatures(kept: string, stored: string, verifiers: readonly Verifier[]): { kept: string; stored: string } {
  const keptNow = withCosignatures(kept, verifiedCosignatures(stored, parseNote(kept).text, verifiers));
  return { kept: keptNow, stored: withCosignatures(stored, verifiedCosignatures(keptNow, parseNote(stored).text, verifiers)) };
}

/**
 * `note` with the cosignature `lines` (each a signature line, newline included) added after its signatures, each
 * replacing a line of the same witness (name and key id) it held: one cosignature per witness, the latest. A line it
 * holds already is left where it is, so that a note merged again with the lines it has is the same note.
 */
export function withCosignatures(note: string, lines: readonly string[]): string {
  if (lines.length === 0) return note;
  const { text, signatures } = parseNote(note);
  const held = signatures.map(signatureLine);
  const added = parseNote(`${text}\n${lines.join('')}`).signatures.filter((line) => !held.includes(signatureLine(line)));
  const kept = signatures.filter((signature) => !added.some((line) => line.name === signature.name && line.id.equals(signature.id)));
  return `${text}\n${[...kept, ...added].map(signatureLine).join('')}`;
}
