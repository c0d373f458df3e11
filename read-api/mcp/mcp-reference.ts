/** The MCP section of `/llms-full.txt`: where the endpoint is, its tools (one per operation) and how it behaves. */
import type { OperationSpec } from '../../shared/read-model/public-api/operations/operation.ts';
import { MCP_PATH } from '../../shared/read-model/public-api/operations/status.operation.ts';
import type { DiscoveryConfig } from '../discovery/llms-txt.ts';
import { openApiPath } from '../discovery/openapi.ts';
import { TOOL_NAMES, VERIFY_TOOL } from './mcp-tools.ts';

export function mcpReferenceSection(operations: readonly OperationSpec[], base: string, config: DiscoveryConfig): string[] {
  return [
    '## Model Context Protocol',
    '',
    `- \`POST ${base}${MCP_PATH}\`: MCP over the Streamable HTTP transport, stateless (no session), JSON answers; \`GET\` is 405.`,
    '  No credential. Send `Accept: application/json, text/event-stream` and `Content-Type: application/json`, one',
    '  JSON-RPC message per request (batches are refused with JSON-RPC error -32600).',
    '- Tools, all read-only; each takes the operation\'s own parameters (same names, bounds and defaults, `lang` included)',
    '  and answers its JSON as `structuredContent` and as text:',
    ...operations.map((op) => `  - \`${TOOL_NAMES[op.id] ?? op.id}\`: ${op.method} ${openApiPath(op.path)} (${op.summary})`),
    '- Bad arguments: a result with `isError: true` whose text content is the same `{"detail": [...]}` as the operation\'s',
    '  422, and no `structuredContent`; an unknown reference or collection: the same with the operation\'s 404 body.',
    '  A refusal (the operation\'s 503: read models not ready or not fresh) is the same with its detail, and',
    '  `_meta.retry_after`: the seconds of the operation\'s `Retry-After`.',
    '  Malformed JSON-RPC: a JSON-RPC error saying what is wrong: -32700 for a body that is no JSON, -32600 for JSON that is',
    '  no JSON-RPC message, -32602 for params that are not the method\'s.',
    `- Limits: every tool call and resource read counts against the ${config.RATE_LIMIT_PER_MINUTE} per minute per client IP; a \`${VERIFY_TOOL}\` call`,
    `  also against the ${config.VERIFY_RATE_LIMIT_PER_MINUTE} verifications per minute. Protocol housekeeping (\`initialize\`, notifications, \`ping\`, the lists,`,
    `  \`GET\`) counts against the ${config.FILE_RATE_LIMIT_PER_MINUTE} per minute of the other files instead. Past a limit: HTTP 429 with \`Retry-After\`, the body`,
    '  a JSON-RPC error to the request\'s id: `{"code": -32029, "message": "... retry after N s", "data": {"detail": ..., "retry_after": N}}`.',
    '  Bodies: at most 16 KiB.',
    '- Resources: `llms-full.txt` (this text) and the OpenAPI document.',
    `- Add it to an MCP client: \`{"mcpServers": {"watchcat": {"type": "http", "url": "${base || 'https://HOST'}${MCP_PATH}"}}}\``,
    '',
  ];
}
