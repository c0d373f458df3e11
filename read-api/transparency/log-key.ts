/**
 * The key that signs the transparency log's checkpoints: a key of its own, never the answer-signing key, so that
 * either can be rotated or revoked alone, under the same key-history rules as answer signing
 * (signing/signing-keys.ts, `loadKeyWithHistory`). Every API process of one deployment takes it from
 * TRANSPARENCY_LOG_KEY (PKCS#8 PEM), which the history TRANSPARENCY_LOG_KEYS (a JWK Set of the log's public keys,
 * each with `nbf`, `exp` once retired, `revoked` once compromised) must then list; one process generates it on first
 * start into `DATA_DIR/keys/transparency-log-key.pem`, listed with the time its file was written. The history is
 * served as verifier keys with their dates (`/.well-known/transparency/keys`), so a monitor can follow a rotation.
 *
 * During a rotation, TRANSPARENCY_LOG_PREVIOUS_KEY holds the outgoing key, which co-signs every checkpoint: a monitor
 * that trusts only it sees the new key sign beside it, and trusts that one from then on (audit log watch). It must be
 * listed in the history and may still sign (not compromised, not retired): a leaked key vouching for the next one
 * would vouch for whatever its holder likes.
 */
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../shared/config/config.ts';
import { publicJwk, publicKeyOf, type Ed25519PublicJwk } from '../../shared/signing/jwk-set.ts';
import type { LogKeyHistory } from '../../shared/read-model/public-api/schemas/transparency.schema.ts';
import { verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { checkMaySign, ed25519Key, loadKeyWithHistory, SigningKeyError } from '../signing/signing-keys.ts';

export const logKeyFile = (dataDir: string) => join(dataDir, 'keys', 'transparency-log-key.pem');

interface LogKeys {
  privateKey: KeyObject;
  /** The outgoing key that co-signs during a rotation, or undefined. */
  previousKey: KeyObject | undefined;
  /** Every key that signed or will sign the log's checkpoints, this one included. */
  history: Ed25519PublicJwk[];
}

type LogKeySettings = Pick<Config, 'DATA_DIR' | 'TRANSPARENCY_LOG_KEY' | 'TRANSPARENCY_LOG_KEYS' | 'TRANSPARENCY_LOG_PREVIOUS_KEY'>;

/** `now` in Unix seconds, for the checks of the log key's own dates. */
export async function loadLogKeys(config: LogKeySettings, now = Math.floor(Date.now() / 1000)): Promise<LogKeys> {
  const { privateKey, keys } = await loadKeyWithHistory({
    pem: config.TRANSPARENCY_LOG_KEY, pemSetting: 'TRANSPARENCY_LOG_KEY', history: config.TRANSPARENCY_LOG_KEYS, historySetting: 'TRANSPARENCY_LOG_KEYS',
    file: logKeyFile(config.DATA_DIR), what: 'log key',
  }, now);
  const previous = config.TRANSPARENCY_LOG_PREVIOUS_KEY;
  return { privateKey, previousKey: previous === undefined ? undefined : await previousLogKey(previous, privateKey, keys, now), history: keys };
}

/** The outgoing key, refused unless the history lists it as a key that may still sign, apart from the current one. */
async function previousLogKey(pem: string, current: KeyObject, history: readonly Ed25519PublicJwk[], now: number): Promise<KeyObject> {
  const key = ed25519Key(pem, 'TRANSPARENCY_LOG_PREVIOUS_KEY');
  const { kid } = await publicJwk(key);
  if (kid === (await publicJwk(current)).kid) throw new SigningKeyError('TRANSPARENCY_LOG_PREVIOUS_KEY is the log key itself: give it the outgoing key, or unset it');
  const listed = history.find((entry) => entry.kid === kid);
  if (listed === undefined) throw new SigningKeyError(`TRANSPARENCY_LOG_KEYS must list the previous log key (kid ${kid}) with its "nbf"`);
  checkMaySign(listed, 'TRANSPARENCY_LOG_KEYS', 'previous log key', now);
  return key;
}

/** The key alone. */
export async function loadLogKey(config: LogKeySettings): Promise<KeyObject> {
  return (await loadLogKeys(config)).privateKey;
}

/** The history as `/.well-known/transparency/keys` serves it: each key as Go's note package reads it, with its dates. */
export function logKeyHistory(origin: string, history: readonly Ed25519PublicJwk[]): string {
  // Each key's `nbf` was required when the history was loaded (signing-keys.ts); the shape is the documented one.
  const keys: LogKeyHistory['keys'] = history.map(({ kid, nbf, exp, revoked, ...jwk }) => ({
    verifier_key: verifierKey(origin, publicKeyOf({ kid, ...jwk } as Ed25519PublicJwk)), kid, nbf: nbf!,
    ...(exp === undefined ? {} : { exp }), ...(revoked === undefined ? {} : { revoked }),
  }));
  return `${JSON.stringify({ keys }, null, 2)}\n`;
}
