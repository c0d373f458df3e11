/**
 * Which log keys a monitor trusts, and how it follows a rotation of the log key: a checkpoint is taken when a key it
 * trusts signed it; a key that co-signed that checkpoint, listed in the service's key history and not marked
 * compromised, is trusted from then on, so that the checkpoints the new key signs alone after the rotation are taken.
 *
 * What a co-signature shows: that the holder of the new key signed the very tree a trusted key signed. A signature
 * covers the checkpoint's text, not the other signature lines, and a note names a key only by its id, so the new
 * verifier key comes from the service's key history: the same trust as the key pinned on first use (use HTTPS).
 */
import {
  isBy, NoteError, parseNote, parseVerifierKey, verifies, type NoteSignature, type Verifier,
} from '../../shared/transparency/signed-note.ts';

export interface TrustedOpening {
  /** The note's text (the checkpoint). */
  text: string;
  /** Verifier keys that co-signed it, not trusted before: to trust from now on. */
  learned: string[];
}

const named = ({ name, id }: NoteSignature | Verifier) => `${name} key id ${id.toString('hex')}`;

/**
 * Opens `note` with the `trusted` verifier keys; `listed` gives the service's current keys (its history, the
 * compromised ones left out), asked only when the note carries a signature by a key not trusted yet. Throws a
 * NoteError naming the keys found when no trusted key signed it, or when a trusted key's signature does not match.
 */
export async function openTrusted(note: string, trusted: readonly string[], listed: () => Promise<readonly string[]>): Promise<TrustedOpening> {
  const { text, signatures } = parseNote(note);
  const verifiers = trusted.map(parseVerifierKey);
  const trustedOf = (signature: NoteSignature) => verifiers.find((verifier) => isBy(signature, verifier));
  const others = signatures.filter((signature) => trustedOf(signature) === undefined);
  if (others.length === signatures.length) {
    throw new NoteError(`signed by no key this monitor trusts: it carries ${signatures.map(named).join(', ')}; trusted: ${verifiers.map(named).join(', ')}`);
  }
  for (const signature of signatures) {
    const verifier = trustedOf(signature);
    if (verifier && !verifies(text, signature, verifier)) throw new NoteError(`the signature of ${named(verifier)} does not match the note`);
  }
  if (others.length === 0) return { text, learned: [] };
  const candidates = (await listed()).map((key) => ({ key, verifier: parseVerifierKey(key) }));
  // A signature by a key the history does not list, or that does not verify, is left aside, as Go's note.Open does.
  const learned = candidates.filter(({ verifier }) => others.some((signature) => verifies(text, signature, verifier))).map(({ key }) => key);
  return { text, learned };
}
