/**
 * `/llms-full.txt`: the complete reference for language models and people, generated from the operation specs
 * (parameters, bodies, answers) of the public operations and of the transparency log's endpoints, and the
 * configuration (limits), so it says what the service really does.
 */
import type { TSchema } from 'typebox';
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { BRAND } from '../../shared/brand.ts';
import { REFUSALS } from '../../shared/read-model/public-api/answer-policy.ts';
import { baseUrl } from '../../shared/public-base-url.ts';
import type { DiscoveryConfig } from './llms-txt.ts';
import { mcpReferenceSection } from '../mcp/mcp-reference.ts';
import { openApiPath } from './openapi.ts';
import { LOG_PREFIX, transparencyEndpoints } from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';
import { BODY_EXAMPLES, examplePath, parameterDocs, QUERY_EXAMPLES } from './parameter-docs.ts';

export function buildLlmsFullTxt(operations: readonly OperationSpec[], config: DiscoveryConfig): string {
  const base = baseUrl(config);
  return [
    `# ${BRAND.name}: public catalogue API, complete reference`,
    '',
    `> ${BRAND.summary.en}`,
    '',
    `Base URL: ${base || 'the address that served this file'}. Version 1.0.0 (OpenAPI 3.1.0 at ${base}/.well-known/openapi-public.json). Paths carry no version.`,
    'Read-only and public: no API key, no sign-up, no credential of any kind; no customer data is ever returned.',
    'Every operation takes `lang`: `en` (default) or `fr`; text fields come in that language. Unknown query parameters are ignored.',
    'Answers are JSON (`application/json; charset=utf-8`). Money is in euros (EUR, tax included) as JSON numbers with at most',
    'two decimals; every total is exactly the sum of its parts.',
    `Custom orders are delivered ${BRAND.customOrderDeliveryWeeks.min} to ${BRAND.customOrderDeliveryWeeks.max} weeks after the order is confirmed.`,
    'Every answer read from the catalogue says the event-store position its data reflects (`X-Read-Model-Position`). To read',
    'your own change, send its position (an admin change answers it in `X-Position`) as `X-Min-Position`: the answer is',
    `read at or past it, waited for up to ${config.MIN_POSITION_WAIT_MS} ms, else 503 with \`Retry-After\`; over MCP too (the POST's header).`,
    'Any route takes it: one that is not canonical decimal digits is a 422; the files not read at a position (these texts,',
    'the keys, the log\'s tiles) check it and answer at once.',
    '',
    ...operations.flatMap((op) => operationReference(op, base)),
    ...transparencyLogSection(base),
    '## Errors',
    '',
    '- 422 validation error: `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}`, every failing field at once; `loc` starts',
    '  with "query", "path", "header" or "body". Example for `GET /api/public/catalogue?limit=101`:',
    '  `{"detail":[{"type":"less_than_equal","loc":["query","limit"],"msg":"Input should be less than or equal to 100","input":"101","ctx":{"le":100}}]}`',
    '- 404 `{"detail": "Watch not found"}` or `{"detail": "Collection not found"}`; unknown path `{"detail": "Not Found"}`.',
    '- 405 `{"detail": "Method Not Allowed"}` for a wrong method on a known path.',
    '- 413 `{"detail": "Request body too large"}` for a body above 16 KiB.',
    `- 429 \`{"detail": "Rate limit exceeded: ${config.RATE_LIMIT_PER_MINUTE} per 1 minute"}\` (or \`${config.VERIFY_RATE_LIMIT_PER_MINUTE} per 1 minute\` on verification, \`${config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE} per 1 minute\` when all clients' verifications together are over their budget), with \`Retry-After\` in seconds.`,
    `- 503 with \`Retry-After\`, to try again: \`{"detail": "${REFUSALS.unbuilt.en}"}\` (\`lang=fr\`: "${REFUSALS.unbuilt.fr}");`,
    `  on verification \`"${REFUSALS.registry.en}"\` ("${REFUSALS.registry.fr}"); with \`X-Min-Position\`,`,
    `  \`"${REFUSALS.behind.en}"\` ("${REFUSALS.behind.fr}").`,
    '- The 503 details come in the language asked; the other error texts (422 `msg`, 404, 405, 413, 429) are in English whatever `lang` says.',
    '',
    '## Limits',
    '',
    `- ${config.RATE_LIMIT_PER_MINUTE} requests per minute per client IP over all /api/public operations, whatever the answer.`,
    `- ${config.VERIFY_RATE_LIMIT_PER_MINUTE} serial verifications per minute per client IP, counted against both limits.`,
    `- ${config.VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE} serial verifications per minute over all clients together, against enumeration from many addresses.`,
    `- ${config.FILE_RATE_LIMIT_PER_MINUTE} requests per minute per client IP to the other files (transparency log, keys, these texts).`,
    '- IPv6 clients are counted per /64 network. With Redis configured, every API process shares the same counts.',
    '- Rate-limited answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds when the',
    '  window frees up); verification answers show the verification limit.',
    '- Catalogue `limit`: 1 to 100, default 50; `offset` 0 to 2^53 - 1. Request bodies: at most 16 KiB.',
    '',
    ...mcpReferenceSection(operations, base, config),
    '## Signed answers',
    '',
    '- Send `Accept-Signature` (RFC 9421, section 5.1) and the answer (any status but 422 and 429) carries `Content-Digest`',
    '  (RFC 9530, sha-256 of the content sent), `Signature-Input` and `Signature` (Ed25519), and `Signed-Request`, the',
    '  method, authority (this service\'s own, not your `Host`) and target of your request as the signature covers them',
    '  (`GET //host/path?query`). A 422 echoes your input, so it is never signed. Example:',
    `  \`curl -si -H 'Accept-Signature: sig1=("@status" "content-digest");alg="ed25519"' '${base}/api/public/verify/SERIAL' > receipt.txt\``,
    '- The label is the first one your `Accept-Signature` names (`sig1` by default). Covered: `"@status"`, `"content-type"`,',
    '  `"content-digest"`, `"etag"` and `"retry-after"` when present, `"@method";req`, `"@authority";req`, `"@path";req`,',
    '  `"@query";req`, and the other components you ask for that the answer has; parameters `created`, `keyid`,',
    '  `alg="ed25519"`, and your `nonce`/`tag`.',
    '- Signing costs you: a request with `Accept-Signature` counts against the per-IP limit whatever its path. One over',
    '  1 KiB, with more than 4 labels or more than 16 components, is ignored (the answer goes out unsigned).',
    '- A 304 or HEAD answer sends no content: its `Content-Digest` is that of empty content, and its signature covers the `ETag`.',
    `- \`keyid\` is the RFC 7638 thumbprint of a key of ${base}/.well-known/jwks.json, the key history: each key with \`nbf\``,
    '  (began signing) and, once retired, `exp`; a key marked `revoked` (compromised) voids every answer it signed.',
    '  A receipt proves that the key holder signed this answer to that request; `created` is the signer\'s own date.',
    '  `npx watchcat receipt verify receipt.txt --jwks URL` checks a saved answer offline.',
    '',
    '## Caching and CORS',
    '',
    '- Every 200 to a GET carries an `ETag`; send it back in `If-None-Match` to get 304 without a body.',
    '- Catalogue, detail, collections and options: `Cache-Control: public, max-age=60`; verification: `no-store`.',
    '- `Access-Control-Allow-Origin: *` on every answer to a request with an `Origin`; every public route answers CORS preflight, allowing `Content-Type`, `Accept-Signature` and `X-Min-Position`.',
    '',
  ].join('\n');
}

/**
 * One operation's reference (parameters, body, answers, an example), from its spec: a section of llms-full.txt, and
 * of the repository's API reference (docs/api.md, written by scripts/api-reference.ts) under a deeper `heading`.
 */
export function operationReference(op: OperationSpec, base: string, heading = '##'): string[] {
  const params = parameterDocs(op);
  const query = QUERY_EXAMPLES[op.id] ?? (op.params?.query ? 'lang=en' : undefined);
  const example = op.method === 'GET'
    ? `curl '${base}${examplePath(op)}${query === undefined ? '' : `?${query}`}'`
    : `curl -X ${op.method} '${base}${examplePath(op)}' -H 'Content-Type: application/json' -d '${JSON.stringify(BODY_EXAMPLES[op.id])}'`;
  return [
    `${heading} ${op.method} ${openApiPath(op.path)}`,
    '',
    `${op.summary}. ${op.description}`,
    '',
    'Parameters:',
    ...(params.length === 0 ? ['- none'] : params.map((p) => {
      const unsaid = p.aliases.filter((alias) => !p.description.includes(alias));
      const aliases = unsaid.length > 0 ? ` Also accepted as ${unsaid.map((a) => `\`${a}\``).join(', ')}.` : '';
      return `- \`${p.name}\` (${p.location}, ${p.required ? 'required' : 'optional'}; ${p.summary})${p.description ? `: ${p.description}` : ''}${aliases}`;
    })),
    ...(op.body ? ['', `Request body (JSON, required): ${fieldList(op.body)}`] : []),
    '',
    'Answers:',
    ...Object.entries(op.responses).map(([status, r]) => `- ${status} ${r.description}${status === '200' && r.schema ? answerShape(r.schema, r.mediaType) : ''}`),
    ...(op.cacheControl ? [`- Cache-Control of a 200: \`${op.cacheControl}\``] : []),
    ...(op.verifyLimited ? ['- Also counted against the verification rate limit.'] : []),
    '',
    'Example:',
    '',
    `    ${example}`,
    '',
  ];
}

/**
 * The log's endpoints, under a heading of their own: the base URL a C2SP tlog-tiles client is given, and what is not
 * public (entries).
 */
function transparencyLogSection(base: string): string[] {
  return [
    '## Transparency log',
    '',
    'Every event is a leaf of an append-only Merkle tree (RFC 9162), so that no one, the operator included, rewrites the',
    `history unseen. \`${base}${LOG_PREFIX}\` is the log's base URL as C2SP tlog-tiles lays a log out: \`checkpoint\` (a signed`,
    'note) and the hash tiles `tile/<L>/<N>[.p/<W>]`, so a tlog-tiles client works from it alone. Entries (`tile/entries/...`)',
    'are not public: the admin API serves them, the checkpoint and the tiles under `/admin/transparency` to a key of scope `audit`.',
    '',
    ...transparencyEndpoints.flatMap((op) => operationReference(op, base, '###')),
  ];
}

/** A 200's shape: the fields of a JSON object, or the media type and what the text or bytes hold. */
function answerShape(schema: TSchema, mediaType: string | undefined): string {
  if (mediaType === undefined) return `: ${fieldList(schema)}`;
  const { description } = schema as { description?: string };
  return ` (\`${mediaType}\`)${description ? `: ${description}` : ''}`;
}

/** The top-level fields of an object schema, `name (type)`, with `?` for those not always present. */
function fieldList(schema: TSchema): string {
  const object = schema as { properties?: Record<string, Json>; required?: string[] };
  const required = new Set(object.required ?? []);
  const fields = Object.entries(object.properties ?? {}).map(([name, property]) => `\`${name}\`${required.has(name) ? '' : '?'} (${typeName(property)})`);
  return fields.length > 0 ? fields.join(', ') : 'see the OpenAPI document';
}

type Json = Record<string, unknown>;

/** `string`, `one of a, b`, `object or null`, ... */
function typeName(schema: Json): string {
  if ('const' in schema) return JSON.stringify(schema['const']);
  const options = schema['anyOf'];
  if (Array.isArray(options)) {
    const names = (options as Json[]).map(typeName);
    return (options as Json[]).every((o) => 'const' in o) ? `one of ${names.join(', ')}` : names.join(' or ');
  }
  if (schema['type'] === 'array' && typeof schema['items'] === 'object') return `array of ${typeName(schema['items'] as Json)}`;
  return typeof schema['type'] === 'string' ? schema['type'] : 'any';
}
