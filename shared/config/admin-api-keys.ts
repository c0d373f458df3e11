/**
 * The syntax and strength of `ADMIN_API_KEYS` (`key:scope,key:scope`), checked with the rest of the configuration
 * at start so that a weak key is named in the same message as every other bad setting. Never quotes a key.
 */

/** `audit` runs the read-model audit on the operations port of the embedded server. */
const ADMIN_SCOPES = ['catalogue', 'serials', 'audit'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/** Shorter keys can be guessed; 32 characters of a random base64 or hex string are far out of reach. */
const MIN_KEY_LENGTH = 32;
/** Values copied from examples and never replaced. */
const PLACEHOLDER = /change-?me|replace-?me|your[-_]?(?:api[-_]?)?key|placeholder|example|^(.)\1*$/i;

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
export function parseAdminKeyEntries(spec: string): { key: string; scopes: Set<AdminScope> }[] {
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

