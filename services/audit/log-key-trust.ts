/**
 * Which log keys a monitor trusts, and how it follows a rotation of the log key: a checkpoint is taken when a key it
 * trusts signed it; a key that co-signed that checkpoint, listed in the service's key history and not marked
 * compromised, is trusted from then on, so that the checkpoints the new key signs alone after the rotation are taken.
 * A trusted key that the history marks compromised (`revoked`), then or later, is dropped before the checkpoint is
 * opened: a leaked key vouches for whatever its holder signs, so a checkpoint signed only by it is refused.
 *
 * What a co-signature shows: that the holder of the new key signed the very tree a trusted key signed. A signature
 * covers the checkpoint's text, not the other signature lines, and a note names a key only by its id, so the new
 * verifier key comes from the service's key history: the same trust as the key pinned on first use (use HTTPS).
 */
import {
  isBy, NoteError, parseNote, parseVerifierKey, verifies, type NoteSignature, type Verifier,
} from '../../shared/read-model/transparency/signed-note.ts';

/** An entry of the service's key history (`GET /.well-known/transparency/keys`), as far as a monitor reads it. */
export interface HistoryKey { verifier_key: string; revoked?: unknown }

/**
 * The entries of a key history served as `{"keys": [{"verifier_key", "revoked"?, ...}]}`, each a verifier key; or
 * undefined when `body` is not that. Other fields (`kid`, `nbf`, `exp`) are left to the service.
 */
export function readKeyHistory(body: string): HistoryKey[] | undefined {
  let keys: unknown;
  try {
    ({ keys } = JSON.parse(body) as { keys?: unknown });
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys)) return undefined;
  const isEntry = (entry: unknown): entry is HistoryKey => {
    const key = (entry as Partial<HistoryKey> | null)?.verifier_key;
    if (typeof key !== 'string') return false;
    try {
      parseVerifierKey(key);
      return true;
    } catch {
      return false;
    }
  };
  return keys.every(isEntry) ? keys.map(({ verifier_key, revoked }) => ({ verifier_key, ...(revoked === undefined ? {} : { revoked }) })) : undefined;
}

/** The verifier keys the history lists, those marked compromised left out: the only co-signers a monitor learns. */
export const listedKeys = (history: readonly HistoryKey[]): string[] =>
  history.filter((entry) => entry.revoked === undefined).map((entry) => entry.verifier_key);

/** The public key of a verifier key (its base64 part): a leaked key is compromised under whatever name it is given. */
const publicPart = (key: string) => key.trim().split('+').slice(2).join('+');

/** The `trusted` verifier keys split by the history: those it marks compromised are dropped, in their order. */
export function withoutCompromised(trusted: readonly string[], history: readonly HistoryKey[]): { kept: string[]; dropped: string[] } {
  const compromised = new Set(history.filter((entry) => entry.revoked !== undefined).map((entry) => publicPart(entry.verifier_key)));
  return {
    kept: trusted.filter((key) => !compromised.has(publicPart(key))),
    dropped: trusted.filter((key) => compromised.has(publicPart(key))),
  };
}

interface TrustedOpening {
  /** The note's text (the checkpoint). */
  text: string;
  /** Verifier keys that co-signed it, not trusted before: to trust from now on. */
  learned: string[];
  /** The names of the trusted keys that signed it (each signature verified). */
  signers: string[];
}

const named = ({ name, id }: NoteSignature | Verifier) => `${name} key id ${id.toString('hex')}`;

/** `<name> key id <hex>` of a verifier key. */
export const keyName = (key: string): string => named(parseVerifierKey(key));

/**
 * Opens `note` with the `trusted` verifier keys; `listed` gives the service's current keys (its history, the
 * compromised ones left out), asked only when the note carries a signature by a key not trusted yet. Throws a
 * NoteError naming the keys found when no trusted key signed it (and the keys `dropped` as compromised before this
 * check, when any were), or when a trusted key's signature does not match.
 */
export async function openTrusted(
  note: string, trusted: readonly string[], listed: () => Promise<readonly string[]>, dropped: readonly string[] = [],
): Promise<TrustedOpening> {
  const { text, signatures } = parseNote(note);
  const verifiers = trusted.map(parseVerifierKey);
  const trustedOf = (signature: NoteSignature) => verifiers.find((verifier) => isBy(signature, verifier));
  const others = signatures.filter((signature) => trustedOf(signature) === undefined);
  if (others.length === signatures.length) {
    const leaked = dropped.length === 0 ? '' : `; dropped as compromised: ${dropped.map(keyName).join(', ')}`;
    throw new NoteError(`signed by no key this monitor trusts: it carries ${signatures.map(named).join(', ')}; trusted: ${verifiers.map(named).join(', ') || 'none'}${leaked}`);
  }
  const signers: string[] = [];
  for (const signature of signatures) {
    const verifier = trustedOf(signature);
    if (verifier && !verifies(text, signature, verifier)) throw new NoteError(`the signature of ${named(verifier)} does not match the note`);
    if (verifier && !signers.includes(verifier.name)) signers.push(verifier.name);
  }
  if (others.length === 0) return { text, learned: [], signers };
  const candidates = (await listed()).map((key) => ({ key, verifier: parseVerifierKey(key) }));
  // A signature by a key the history does not list, or that does not verify, is left aside, as Go's note.Open does.
  const learned = candidates.filter(({ verifier }) => others.some((signature) => verifies(text, signature, verifier))).map(({ key }) => key);
  return { text, learned, signers };
}
