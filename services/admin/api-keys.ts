/**
 * Admin API keys from `ADMIN_API_KEYS` (`key:scope,key:scope`). A presented key is compared with every known key
 * in constant time: both sides are hashed first, so the comparison takes as long whatever the key's length, and
 * the loop never stops early on a match. Keys are never logged or echoed; the history names a key by its id
 * (`key-1` for the first key listed, and so on), which says nothing about the key itself.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseAdminKeyEntries, type AdminScope } from '../../shared/config/admin-api-keys.ts';

export type { AdminScope };

interface KnownKey {
  id: string;
  digest: Buffer;
  scopes: Set<AdminScope>;
}

interface AdminIdentity {
  /** Names the key without revealing it: `key-N`, N its place among the distinct keys of `ADMIN_API_KEYS`. */
  keyId: string;
  scopes: ReadonlySet<AdminScope>;
}

export interface ApiKeyRing {
  /** Who presented `presented`, or null when it is missing or unknown. */
  identify(presented: string | undefined): AdminIdentity | null;
}

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

/**
 * Throws one message naming every bad entry, so a typo or a weak key stops the start instead of locking people
 * out or letting guessers in. Spaces around a key are dropped: a header value never carries them.
 */
export function parseApiKeys(spec: string): ApiKeyRing {
  const keys: KnownKey[] = parseAdminKeyEntries(spec).map(({ key, scopes }, index) => ({ id: `key-${index + 1}`, digest: digest(key), scopes }));
  return {
    identify(presented) {
      if (presented === undefined || presented === '') return null;
      const candidate = digest(presented);
      let found: KnownKey | null = null;
      for (const key of keys) if (timingSafeEqual(candidate, key.digest)) found = key;
      return found ? { keyId: found.id, scopes: found.scopes } : null;
    },
  };
}

/** The first key of `spec` with `scope`, for a client run with the service's own settings (the `watchcat` CLI). */
export function firstKeyWithScope(spec: string, scope: AdminScope): string | undefined {
  return parseAdminKeyEntries(spec).find((entry) => entry.scopes.has(scope))?.key;
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
