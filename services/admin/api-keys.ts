/**
 * Admin API keys from `ADMIN_API_KEYS` (`key:scope,key:scope`). A presented key is compared with every known key
 * in constant time: both sides are hashed first, so the comparison takes as long whatever the key's length, and
 * the loop never stops early on a match. Keys are never logged or echoed; the history names a key by its id
 * (`key-1` for the first key listed, and so on), which says nothing about the key itself.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** `audit` runs the read-model audit on the operations port of the embedded server. */
export const ADMIN_SCOPES = ['catalogue', 'serials', 'audit'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/** Shorter keys can be guessed; 32 characters of a random base64 or hex string are far out of reach. */
const MIN_KEY_LENGTH = 32;
/** Values copied from examples and never replaced. */
const PLACEHOLDER = /change-?me|replace-?me|your[-_]?(?:api[-_]?)?key|placeholder|example|^(.)\1*$/i;

interface KnownKey {
  id: string;
  digest: Buffer;
  scopes: Set<AdminScope>;
}

export interface AdminIdentity {
  /** Names the key without revealing it: `key-N`, N its place among the distinct keys of `ADMIN_API_KEYS`. */
  keyId: string;
  scopes: ReadonlySet<AdminScope>;
}

export interface ApiKeyRing {
  /** Who presented `presented`, or null when it is missing or unknown. */
  identify(presented: string | undefined): AdminIdentity | null;
}

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

function isScope(value: string): value is AdminScope {
  return (ADMIN_SCOPES as readonly string[]).includes(value);
}

/** What is wrong with entry `n`, or null. Never quotes the key. */
function entryProblem(n: number, key: string, scope: string): string | null {
  if (key === '' || !isScope(scope)) return `entry ${n} is not key:scope with scope ${ADMIN_SCOPES.join(' or ')}`;
  if (key.length < MIN_KEY_LENGTH) return `entry ${n} has a key of ${key.length} characters, fewer than ${MIN_KEY_LENGTH}`;
  if (PLACEHOLDER.test(key)) return `entry ${n} has a placeholder key`;
  return null;
}

/** The distinct keys of `spec` in order, each with its scopes; throws one message naming every bad entry. */
function parseEntries(spec: string): { key: string; scopes: Set<AdminScope> }[] {
  const byKey = new Map<string, Set<AdminScope>>();
  const problems: string[] = [];
  spec.split(',').map((part) => part.trim()).filter(Boolean).forEach((entry, index) => {
    const separator = entry.lastIndexOf(':');
    const key = separator < 0 ? '' : entry.slice(0, separator).trim();
    const scope = entry.slice(separator + 1).trim();
    const problem = entryProblem(index + 1, key, scope);
    if (problem) return void problems.push(problem);
    byKey.set(key, (byKey.get(key) ?? new Set<AdminScope>()).add(scope as AdminScope));
  });
  if (problems.length > 0) {
    throw new Error(`ADMIN_API_KEYS: ${problems.join('; ')} (keys must be at least ${MIN_KEY_LENGTH} characters, e.g. \`openssl rand -hex 32\`)`);
  }
  return [...byKey].map(([key, scopes]) => ({ key, scopes }));
}

/**
 * Throws one message naming every bad entry, so a typo or a weak key stops the start instead of locking people
 * out or letting guessers in. Spaces around a key are dropped: a header value never carries them.
 */
export function parseApiKeys(spec: string): ApiKeyRing {
  const keys: KnownKey[] = parseEntries(spec).map(({ key, scopes }, index) => ({ id: `key-${index + 1}`, digest: digest(key), scopes }));
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
  return parseEntries(spec).find((entry) => entry.scopes.has(scope))?.key;
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
