/**
 * The key that signs the transparency log's checkpoints: a key of its own, never the answer-signing key, so that
 * either can be rotated or revoked alone, under the same key-history rules as answer signing
 * (signing/signing-keys.ts, `loadKeyWithHistory`). Every API process of one deployment takes it from
 * TRANSPARENCY_LOG_KEY (PKCS#8 PEM), which the history TRANSPARENCY_LOG_KEYS (a JWK Set of the log's public keys,
 * each with `nbf`, `exp` once retired, `revoked` once compromised) must then list; one process generates it on first
 * start into `DATA_DIR/keys/transparency-log-key.pem`, listed with the time its file was written. The history is
 * served as verifier keys with their dates (`/.well-known/transparency/keys`), so a monitor can follow a rotation.
 */
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../shared/config/config.ts';
import { publicKeyOf, type Ed25519PublicJwk } from '../../shared/signing/jwk-set.ts';
import { verifierKey } from '../../shared/transparency/signed-note.ts';
import { loadKeyWithHistory } from '../signing/signing-keys.ts';

export const logKeyFile = (dataDir: string) => join(dataDir, 'keys', 'transparency-log-key.pem');

export interface LogKeys {
  privateKey: KeyObject;
  /** Every key that signed or will sign the log's checkpoints, this one included. */
  history: Ed25519PublicJwk[];
}

type LogKeySettings = Pick<Config, 'DATA_DIR' | 'TRANSPARENCY_LOG_KEY' | 'TRANSPARENCY_LOG_KEYS'>;

/** `now` in Unix seconds, for the checks of the log key's own dates. */
export async function loadLogKeys(config: LogKeySettings, now = Math.floor(Date.now() / 1000)): Promise<LogKeys> {
  const { privateKey, keys } = await loadKeyWithHistory({
    pem: config.TRANSPARENCY_LOG_KEY, pemSetting: 'TRANSPARENCY_LOG_KEY', history: config.TRANSPARENCY_LOG_KEYS, historySetting: 'TRANSPARENCY_LOG_KEYS',
    file: logKeyFile(config.DATA_DIR), what: 'log key',
  }, now);
  return { privateKey, history: keys };
}

/** The key alone. */
export async function loadLogKey(config: LogKeySettings): Promise<KeyObject> {
  return (await loadLogKeys(config)).privateKey;
}

/** The history as `/.well-known/transparency/keys` serves it: each key as Go's note package reads it, with its dates. */
export function logKeyHistory(origin: string, history: readonly Ed25519PublicJwk[]): string {
  const keys = history.map(({ kid, nbf, exp, revoked, ...jwk }) => ({
    verifier_key: verifierKey(origin, publicKeyOf({ kid, ...jwk } as Ed25519PublicJwk)), kid, nbf,
    ...(exp === undefined ? {} : { exp }), ...(revoked === undefined ? {} : { revoked }),
  }));
  return `${JSON.stringify({ keys }, null, 2)}\n`;
}
