/**
 * The OpenAPI 3.1 document of the public operations and of the transparency log's public endpoints, built from the
 * very schemas that validate requests and type answers (each one's `OperationSpec`), plus the section 2.4 shapes of
 * the seed under `components.schemas`.
 */
import type { TSchema } from 'typebox';
import type { Config } from '../../shared/config/config.ts';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { RateLimited } from '../../shared/read-model/public-api/schemas/common.schema.ts';
import { BRAND } from '../../shared/brand.ts';
import { baseUrl, baseUrlOrRoot } from '../../shared/public-base-url.ts';
import { LOG_PREFIX, transparencyEndpoints } from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';
import { legacyShapes } from './legacy-shapes/index.ts';
import { BODY_EXAMPLES, PATH_EXAMPLES } from './parameter-docs.ts';
import { ComponentSchemas } from './schema-components.ts';

type Json = Record<string, unknown>;

type OpenApiConfig = Pick<Config, 'PUBLIC_BASE_URL' | 'RATE_LIMIT_PER_MINUTE' | 'VERIFY_RATE_LIMIT_PER_MINUTE' | 'FILE_RATE_LIMIT_PER_MINUTE'>;

const TAG_DESCRIPTIONS: Record<string, string> = {
  Status: 'Health and capability discovery.',
  Catalogue: 'The published watches.',
  Collections: 'The collections and their price ranges.',
  Configurator: 'Customization options and prices of custom configurations.',
  Verification: 'Authenticity and stolen status of serial numbers.',
  Transparency: 'The append-only log of every event: signed checkpoints, hash tiles and proofs (RFC 9162, C2SP tlog-tiles).',
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** `/api/public/catalogue/:reference` as OpenAPI writes it: `/api/public/catalogue/{reference}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `operations`: the public operations; the log's endpoints follow them. */
export function buildOpenApiDocument(operations: readonly OperationSpec[], config: OpenApiConfig): Json {
  const components = new ComponentSchemas();
  const paths: Record<string, Json> = {};
  const documented = [...operations, ...transparencyEndpoints];
  for (const operation of documented) {
    const path = openApiPath(operation.path);
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: operationObject(operation, components) };
  }
  for (const shape of legacyShapes) components.register(shape);
  const tags = [...new Set(documented.flatMap((op) => op.tags))].map((name) => ({
    name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations.`,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: `${BRAND.name} public catalogue API`,
      version: '1.0.0',
      summary: BRAND.tagline.en,
      description: [
        `${BRAND.summary.en}`,
        '',
        'Read-only and public: no credential, no customer data. Every operation under `/api/public` takes `lang` (`en` default, or `fr`).',
        `Rate limits per client IP: ${config.RATE_LIMIT_PER_MINUTE} requests per minute over all operations, and`,
        `${config.VERIFY_RATE_LIMIT_PER_MINUTE} per minute for serial verification (counted against both).`,
        `Custom orders are delivered ${BRAND.customOrderDeliveryWeeks.min} to ${BRAND.customOrderDeliveryWeeks.max} weeks after confirmation.`,
        '',
        'Signed answers: a request with `Accept-Signature` (RFC 9421) gets `Content-Digest` (RFC 9530), `Signature-Input`,',
        '`Signature` and `Signed-Request` on its answer, an Ed25519 signature whose `keyid` is the thumbprint of a key of',
        `${baseUrl(config)}/.well-known/jwks.json (a JWK Set).`,
        '',
        `Transparency log: every event is a leaf of an append-only Merkle tree (RFC 9162). \`${LOG_PREFIX}\` is its base URL`,
        'as C2SP tlog-tiles lays a log out (`checkpoint`, `tile/<L>/<N>[.p/<W>]`), so a tlog-tiles client works from it alone;',
        `entry bundles are served to auditors only, by the admin API. The log's checkpoint, tiles and keys count against a limit of`,
        `their own: ${config.FILE_RATE_LIMIT_PER_MINUTE} requests per minute per client IP; its proofs against the general one.`,
      ].join('\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      // OpenAPI wants an absolute contact URL: none without a configured base.
      contact: { name: BRAND.name, ...(config.PUBLIC_BASE_URL ? { url: config.PUBLIC_BASE_URL } : {}) },
    },
    servers: [{ url: baseUrlOrRoot(config), description: 'This deployment' }],
    // Public operations: no credential of any kind.
    security: [],
    tags,
    paths,
    components: { schemas: components.schemas, headers: rateLimitHeaders() },
  };
}

function operationObject(operation: OperationSpec, components: ComponentSchemas): Json {
  const parameters = [
    ...parametersOf(operation.params?.path, 'path', components),
    ...parametersOf(operation.params?.query, 'query', components),
    ...parametersOf(operation.params?.header, 'header', components),
  ];
  const responses: Record<string, Json> = {};
  // What an operation answers is what it declares (a 422 only where it validates something), and a 429 besides.
  const declared: OperationSpec['responses'] = { ...operation.responses };
  declared['429'] ??= { description: 'Rate limit exceeded', schema: RateLimited };
  for (const [status, response] of Object.entries(declared)) {
    const answer: Json = { description: response.description };
    if (response.schema) answer['content'] = { [response.mediaType ?? 'application/json']: { schema: components.use(response.schema) } };
    if (status.startsWith('2')) answer['headers'] = { ...cacheHeaders(operation), ...response.headers };
    if (status === '429') {
      answer['headers'] = { 'Retry-After': { description: 'Seconds until a request is accepted again.', schema: { type: 'integer' } }, ...RATE_LIMIT_HEADERS };
    }
    responses[status] = answer;
  }
  return {
    operationId: operation.id,
    summary: operation.summary,
    description: operation.description,
    tags: operation.tags,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: components.use(operation.body), ...examples(BODY_EXAMPLES[operation.id]) } } } }
      : {}),
    responses,
  };
}

/** A header's name as HTTP documents spell it (`X-Min-Position`); the schema holds it as Node gives it, lower case. */
const headerSpelling = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/** One parameter per property of a location's object schema; a defaulted query parameter is optional. */
function parametersOf(schema: TSchema | undefined, location: 'query' | 'path' | 'header', components: ComponentSchemas): Json[] {
  if (!schema) return [];
  const object = components.use(schema) as { properties?: Record<string, Json>; required?: string[] };
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).flatMap(([name, property]) => {
    const { description, 'x-aliases': aliases, ...rest } = property as Json & { description?: string; 'x-aliases'?: string[] };
    const propertySchema = { ...rest, ...(description ? { description } : {}) };
    const example = location === 'path' ? PATH_EXAMPLES[name] : undefined;
    const parameter = {
      name: location === 'header' ? headerSpelling(name) : name, in: location,
      required: location === 'path' || (required.has(name) && !('default' in rest)),
      ...(description ? { description } : {}),
      schema: propertySchema,
      ...examples(example),
    };
    const aliasParameters = (aliases ?? []).map((alias) => ({
      name: alias, in: location, required: false, description: `Alias of \`${name}\`; \`${name}\` wins when both are sent.`,
      schema: propertySchema,
    }));
    return [parameter, ...aliasParameters];
  });
}

/** An `example` member when there is one (parameter-docs.ts: values of the demo catalogue). */
const examples = (example: unknown): Json => (example === undefined ? {} : { example });

function cacheHeaders(operation: OperationSpec): Json {
  return {
    ...RATE_LIMIT_HEADERS,
    ...(operation.cacheControl ? { 'Cache-Control': { description: `\`${operation.cacheControl}\``, schema: { type: 'string' } } } : {}),
    ...(operation.method === 'GET' ? { ETag: { description: 'Entity tag; send it back in `If-None-Match` to get 304.', schema: { type: 'string' } } } : {}),
  };
}

function rateLimitHeaders(): Json {
  return {
    'X-RateLimit-Limit': { description: 'Requests allowed per minute (the verification limit on verifications).', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'Unix time in seconds when the window frees up.', schema: { type: 'integer' } },
  };
}
