/**
 * Admin API keys from `ADMIN_API_KEYS` (`key:scope,key:scope`). A presented key is compared with every known key
 * in constant time: both sides are hashed first, so the comparison takes as long whatever the key's length, and
 * the loop never stops early on a match. Keys are never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export const ADMIN_SCOPES = ['catalogue', 'serials'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

interface KnownKey {
  digest: Buffer;
  scopes: Set<AdminScope>;
}

export interface ApiKeyRing {
  /** The scopes of `presented`, or null when it is missing or unknown. */
  scopesOf(presented: string | undefined): ReadonlySet<AdminScope> | null;
}

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

function isScope(value: string): value is AdminScope {
  return (ADMIN_SCOPES as readonly string[]).includes(value);
}

/** Throws on a malformed entry, so a typo in the configuration stops the start instead of locking people out. */
export function parseApiKeys(spec: string): ApiKeyRing {
  const byKey = new Map<string, KnownKey>();
  for (const entry of spec.split(',').map((part) => part.trim()).filter(Boolean)) {
    const separator = entry.lastIndexOf(':');
    const key = entry.slice(0, separator);
    const scope = entry.slice(separator + 1);
    if (separator <= 0 || !isScope(scope)) {
      throw new Error(`ADMIN_API_KEYS: each entry must be key:scope with scope ${ADMIN_SCOPES.join(' or ')} (entry ${byKey.size + 1} is not)`);
    }
    const known = byKey.get(key) ?? { digest: digest(key), scopes: new Set<AdminScope>() };
    known.scopes.add(scope);
    byKey.set(key, known);
  }
  const keys = [...byKey.values()];
  return {
    scopesOf(presented) {
      if (presented === undefined || presented === '') return null;
      const candidate = digest(presented);
      let found: KnownKey | null = null;
      for (const key of keys) if (timingSafeEqual(candidate, key.digest)) found = key;
      return found ? found.scopes : null;
    },
  };
}

/** The key of `Authorization: Bearer KEY` or of `X-API-Key: KEY`. */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1];
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}
