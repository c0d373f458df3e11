/**
 * Whether a key of the history could have signed an answer dated `created` (docs/api.md, "Signed answers"): not
 * if it is marked compromised (whatever the date: whoever holds a leaked key can write any `created`), nor before
 * its `nbf`, nor after its `exp`. The last two allow `ROTATION_TOLERANCE_SECONDS`, so that clocks a little apart,
 * or a replica that restarts a moment early or late during a rotation, make no receipt that is then refused.
 */
import type { Ed25519PublicJwk } from './jwk-set.ts';

/** How far `created` may stray outside a key's `nbf`..`exp` and still count as inside. */
export const ROTATION_TOLERANCE_SECONDS = 300;

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * Why `key` cannot vouch for an answer signed at `created` (Unix seconds), or undefined when it can. Without a
 * `created`, only the compromise can be judged, and is.
 */
export function keyValidityProblem(key: Ed25519PublicJwk, keyid: string, created: number | undefined): string | undefined {
  if (key.revoked !== undefined) {
    return `key ${keyid} is marked compromised (since ${isoSeconds(key.revoked.revoked_at)}): every answer it signed is void`;
  }
  if (created === undefined) return undefined;
  if (key.nbf !== undefined && created < key.nbf - ROTATION_TOLERANCE_SECONDS) {
    return `key ${keyid} began signing at ${isoSeconds(key.nbf)}, yet the answer says it was signed at ${isoSeconds(created)}`;
  }
  if (key.exp !== undefined && created > key.exp + ROTATION_TOLERANCE_SECONDS) {
    return `expired key ${keyid}: retired at ${isoSeconds(key.exp)}, yet the answer says it was signed at ${isoSeconds(created)}`;
  }
  return undefined;
}
