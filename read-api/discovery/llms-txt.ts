/** `/llms.txt` in the llms.txt convention: H1 brand, `>` summary, then sections of links (the transparency log's among them). */
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { BRAND } from '../../shared/brand.ts';
import { MCP_PATH } from '../../shared/read-model/public-api/operations/status.operation.ts';
import { baseUrl, type BaseUrlConfig } from '../../shared/public-base-url.ts';
import { LOG_PREFIX, transparencyEndpoints } from '../../shared/read-model/public-api/operations/transparency-endpoints.ts';
import { openApiPath } from './openapi.ts';

export interface DiscoveryConfig extends BaseUrlConfig {
  RATE_LIMIT_PER_MINUTE: number;
  VERIFY_RATE_LIMIT_PER_MINUTE: number;
  VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: number;
  FILE_RATE_LIMIT_PER_MINUTE: number;
  MIN_POSITION_WAIT_MS: number;
}

export function buildLlmsTxt(operations: readonly OperationSpec[], config: DiscoveryConfig): string {
  const base = baseUrl(config);
  const link = (op: OperationSpec) => `- [${op.method} ${openApiPath(op.path)}](${base}${openApiPath(op.path)}): ${op.summary}`;
  const lines = [
    `# ${BRAND.name}`,
    '',
    `> ${BRAND.summary.en} This public, read-only JSON API serves the catalogue, the collections, the configurator`,
    `> with prices in EUR, and serial-number verification. No credential, no customer data; \`lang=en\` or \`lang=fr\`.`,
    '',
    `Rate limits per client IP: ${config.RATE_LIMIT_PER_MINUTE} requests per minute, and ${config.VERIFY_RATE_LIMIT_PER_MINUTE} per minute for`,
    `serial verification. Custom orders are delivered ${BRAND.customOrderDeliveryWeeks.min} to ${BRAND.customOrderDeliveryWeeks.max} weeks after confirmation.`,
    '',
    '## Operations',
    '',
    ...operations.map(link),
    '',
    '## Transparency log',
    '',
    `Every event is a leaf of an append-only Merkle tree: ${base}${LOG_PREFIX} is its base URL for a C2SP tlog-tiles client`,
    '(checkpoint and hash tiles; entries are for auditors, on the admin API).',
    '',
    ...transparencyEndpoints.map(link),
    '',
    '## Reference',
    '',
    `- [Complete reference](${base}/llms-full.txt): every operation, parameter, error and limit, with examples`,
    `- [OpenAPI 3.1 description](${base}/.well-known/openapi-public.json): machine-readable schemas of every request and answer`,
    `- [Brand brief](${base}/.well-known/ai-brief.json): brand, offers, languages and policies as JSON`,
    `- [Signing keys](${base}/.well-known/jwks.json): JWK Set of the Ed25519 keys that sign answers to requests with \`Accept-Signature\` (RFC 9421)`,
    `- [Interactive documentation](${base}/docs)`,
    '',
    '## Agents',
    '',
    `- [MCP endpoint](${base}${MCP_PATH}): the Model Context Protocol over Streamable HTTP (POST, stateless), one read-only tool per operation`,
    '',
  ];
  return lines.join('\n');
}
