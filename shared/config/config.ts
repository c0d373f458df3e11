/** Configuration from the environment, validated once at start. Every setting is documented in README.md. */
import Type from 'typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { parseTrustedProxies } from '../net/trusted-proxies.ts';
import { parseAdminKeyEntries } from './admin-api-keys.ts';
import { OWN_SCHEMAS } from '../schema/own-schemas.ts';
import { readEd25519Pem } from '../signing/ed25519-pem.ts';
import { selectProjections } from '../read-model/projections/index.ts';
import type { Projection } from '../read-model/projections/projection.ts';
import { parseWitnessList } from '../read-model/transparency/witness-client.ts';

/** Bytes each answer cache of the read API may hold (ANSWER_CACHE_MAX_BYTES): about 550 of the demo's largest pages. */
export const DEFAULT_ANSWER_CACHE_MAX_BYTES = 16 * 1024 * 1024;

export const Env = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  OPS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9464 }),
  ADMIN_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3100 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** The operations and admin ports are for operators: loopback unless told otherwise. */
  OPS_HOST: Type.String({ default: '127.0.0.1' }),
  ADMIN_HOST: Type.String({ default: '127.0.0.1' }),
  /** Health endpoint of the projector and admin API processes; loopback, as only the container's healthcheck asks. */
  HEALTH_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9465 }),
  HEALTH_HOST: Type.String({ default: '127.0.0.1' }),
  DATA_DIR: Type.String({ default: './data' }),
  EVENTSTORE_URL: Type.Optional(Type.String({ minLength: 1 })),
  MONGODB_URL: Type.Optional(Type.String({ minLength: 1 })),
  MONGODB_DB: Type.String({ default: 'watchcat' }),
  REDIS_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Proxies whose X-Forwarded-For is believed: addresses or CIDR ranges, comma-separated; `false`: none. */
  TRUST_PROXY: Type.String({ default: 'false' }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 60 }),
  VERIFY_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 10 }),
  /** Verifications per minute over all clients together (enumeration protection on top of the per-IP limit). */
  VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 600 }),
  /** Requests per minute per client IP to the public port's other routes: log tiles, checkpoints, keys, discovery files. */
  FILE_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 1200 }),
  /** `key:scope` pairs separated by commas; scopes `catalogue` and `serials`. */
  ADMIN_API_KEYS: Type.String({ default: '' }),
  /** Failed admin authentications a client may make per minute before it is answered 429 without its key checked. */
  ADMIN_AUTH_FAILURES_PER_MINUTE: Type.Integer({ minimum: 1, default: 10 }),
  /** Share of public requests that get a log line (0..1); a 5xx always gets one. */
  REQUEST_LOG_SAMPLE: Type.Number({ minimum: 0, maximum: 1, default: 1 }),
  LOG_LEVEL: Type.Union(
    [Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'),
      Type.Literal('trace'), Type.Literal('silent')],
    { default: 'info' },
  ),
  /**
   * Embedded read store only: seconds between checks that write a snapshot of the read models to DATA_DIR when a
   * projection moved (one is also written at a graceful stop, and loaded at start); 0 turns snapshots off.
   */
  READ_SNAPSHOT_SECONDS: Type.Integer({ minimum: 0, default: 60 }),
  /** The projections a projector process runs, by name, comma-separated; empty: every one. */
  PROJECTIONS: Type.String({ default: '' }),
  /**
   * How long a projector's lease on a projection lasts without renewal (renewed every quarter of it): how long the
   * others wait, by their own clocks, before taking over from a worker that died, against the renewal writes it costs.
   */
  PROJECTION_LEASE_SECONDS: Type.Integer({ minimum: 2, maximum: 300, default: 10 }),
  /**
   * How long ago this process may last have seen a projector confirm applying the event store's head for its read
   * model to count as fresh: status says `degraded` beyond it (docs/api.md, "Honest answers").
   */
  READ_MODEL_MAX_LAG_SECONDS: Type.Integer({ minimum: 1, default: 30 }),
  /**
   * The verification's own bound, tighter than READ_MODEL_MAX_LAG_SECONDS: a verification is refused (503) unless this
   * process saw its read model confirmed at the head within it (docs/api.md, "Honest answers").
   */
  VERIFY_MAX_LAG_SECONDS: Type.Integer({ minimum: 1, default: 5 }),
  /**
   * How long a public request with `X-Min-Position` waits for the read models to reach that position before its 503
   * (docs/api.md, "Read your writes"); 0 answers at once or refuses.
   */
  MIN_POSITION_WAIT_MS: Type.Integer({ minimum: 0, maximum: 30_000, default: 2_000 }),
  /**
   * Seconds a stopping read API keeps answering on its public port after its readiness turned 503, before it stops
   * accepting: time for a load balancer polling readiness to send no more (a listener closed under load resets the
   * connections still in its backlog). 0 stops accepting at once.
   */
  SHUTDOWN_DRAIN_SECONDS: Type.Number({ minimum: 0, maximum: 10, default: 0 }),
  /**
   * Bytes of answers (and their keys) each answer cache of the read API keeps at most, besides its 2000 entries: by
   * canonical request, by URL, and MCP's; least recently used answers leave first. 0 keeps none.
   */
  ANSWER_CACHE_MAX_BYTES: Type.Integer({ minimum: 0, default: DEFAULT_ANSWER_CACHE_MAX_BYTES }),
  /** Seed the demo catalogue when the event store is empty at start. */
  SEED_DEMO: Type.Boolean({ default: true }),
  /** Absolute URL the public API is reached at; unset, links are root-relative (OpenAPI `servers` is `/`). */
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://\\S+$' })),
  /** Ed25519 private key (PKCS#8 PEM) signing answers; unset: a key file generated under DATA_DIR. */
  RESPONSE_SIGNING_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** The key history (JWK Set of public keys with `nbf`, `exp`, `revoked`); must list RESPONSE_SIGNING_KEY when that is set. */
  RESPONSE_SIGNING_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  /** Ed25519 private key (PKCS#8 PEM) signing the transparency log's checkpoints; unset: a key file under DATA_DIR. */
  TRANSPARENCY_LOG_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** The log key's history (JWK Set of public keys with `nbf`, `exp`, `revoked`); must list TRANSPARENCY_LOG_KEY when that is set. */
  TRANSPARENCY_LOG_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * During a rotation of the log key, the outgoing key (PKCS#8 PEM): it co-signs every checkpoint with
   * TRANSPARENCY_LOG_KEY, so that monitors that trust only it learn the new key. TRANSPARENCY_LOG_KEYS must list it.
   */
  TRANSPARENCY_LOG_PREVIOUS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The witnesses the log submits each new checkpoint to (C2SP tlog-witness), whose cosignatures it serves on the
   * checkpoint: `<submission URL> <verifier key>` entries separated by commas; empty: none.
   */
  TRANSPARENCY_WITNESSES: Type.String({ default: '' }),
});
export type Config = Type.Static<typeof Env>;

const validate = new Ajv({ ...OWN_SCHEMAS, useDefaults: true, coerceTypes: true, allErrors: true }).compile(Env as object);

/** Every bad setting, named in one message that holds no stack worth showing (see load-or-exit.ts). */
export class InvalidConfiguration extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'InvalidConfiguration';
  }
}

/** Settings whose default depends on the kind of process, so that each kind has ports of its own. */
export type ProcessDefaults = Partial<Pick<Config, 'HEALTH_PORT'>>;

/**
 * Reads and validates the configuration; throws one `InvalidConfiguration` naming every bad setting. `defaults`
 * replace the schema's defaults for this kind of process.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, defaults: ProcessDefaults = {}): Config {
  const keys = Object.keys((Env as { properties: object }).properties);
  const candidate: Record<string, unknown> = { ...defaults };
  for (const key of keys) if (env[key] !== undefined && env[key] !== '') candidate[key] = env[key];
  const typed = validate(candidate);
  const problems = [
    ...(typed ? [] : schemaProblems(validate.errors ?? [], candidate)),
    ...settingProblems(candidate),
  ];
  if (problems.length > 0) throw new InvalidConfiguration(problems);
  return candidate as Config;
}

/**
 * Ajv's errors, one phrase per bad setting. A setting of a few values (LOG_LEVEL, a union of literals) fails each
 * literal and then the union: it is said once, with the values it takes and the one given (none of them a secret).
 */
function schemaProblems(errors: readonly ErrorObject[], candidate: Record<string, unknown>): string[] {
  const byName = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const name = error.instancePath.slice(1) || 'config';
    byName.set(name, [...(byName.get(name) ?? []), error]);
  }
  return [...byName].flatMap(([name, failed]) => {
    const allowed = failed.filter((e) => e.keyword === 'const').map((e) => String((e.params as { allowedValue: unknown }).allowedValue));
    if (allowed.length === 0 || !failed.every((e) => e.keyword === 'const' || e.keyword === 'anyOf')) return failed.map((e) => `${name} ${e.message}`);
    return [`${name} must be one of ${allowed.join(', ')} (not: ${String(candidate[name])})`];
  });
}

/** The projections `PROJECTIONS` names (every one when it names none); throws naming the unknown ones. */
export function projectionsNamed(names: string): Projection[] {
  const listed = names.split(',').map((name) => name.trim()).filter((name) => name !== '');
  try {
    return selectProjections(listed);
  } catch (error) {
    throw new Error(`PROJECTIONS: ${(error as Error).message}`);
  }
}

/** Only its shape: whether the key history lists it, and may sign, is checked when the keys are loaded (log-key.ts). */
function previousLogKey(pem: string): void {
  if (readEd25519Pem(pem) === undefined) throw new Error('TRANSPARENCY_LOG_PREVIOUS_KEY is not an Ed25519 private key in PKCS#8 PEM');
}

function witnessList(list: string): void {
  try {
    parseWitnessList(list);
  } catch (error) {
    throw new Error(`TRANSPARENCY_WITNESSES: ${(error as Error).message}`);
  }
}

/** What the schema cannot say about a well-typed configuration. */
function settingProblems(candidate: Record<string, unknown>): string[] {
  const checks: [string, (value: string) => unknown][] = [
    ['TRUST_PROXY', parseTrustedProxies], ['ADMIN_API_KEYS', parseAdminKeyEntries], ['TRANSPARENCY_LOG_PREVIOUS_KEY', previousLogKey],
    ['PROJECTIONS', (names) => projectionsNamed(names)], ['TRANSPARENCY_WITNESSES', witnessList],
  ];
  const problems: string[] = [];
  for (const [name, check] of checks) {
    try {
      if (typeof candidate[name] === 'string') check(candidate[name]);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}
