/**
 * One tool call, answered by the operation's own code (not over HTTP): the arguments go through the operation's
 * request validator as its path, query and body would, then its handler runs. A 200 becomes the tool's result;
 * a 422 or a 404 becomes an `isError` result carrying the very body the HTTP operation answers with, as text only:
 * the SDK's `Client.callTool` checks any `structuredContent` against the tool's output schema, error or not, and
 * would throw instead of handing the agent the error (docs/api.md, "Agents over MCP").
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerInSnapshot, type ReadingEnv } from '../../shared/read-model/public-api/answer-policy.ts';
import type { ReadStamp } from '../../shared/read-model/public-api/read-model-clock.ts';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import type { RawRequest, ValidRequest } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import type { McpTool } from './mcp-tools.ts';

/**
 * The arguments as the HTTP request's parts. Every argument is offered to the query and to the body, as an HTTP
 * client may send any parameter there: each part reads only its own fields (and their aliases) and ignores the
 * rest, as unknown query parameters and body fields are ignored over HTTP. Arguments are JSON: a list given for a
 * scalar is refused as the tool's input schema says, not read as a repeated query parameter.
 */
function asRequest(tool: McpTool, args: Record<string, unknown>, header: RawRequest['header']): RawRequest {
  const path: Record<string, string> = {};
  const pathSchema = tool.operation.spec.params?.path as { properties?: Record<string, unknown> } | undefined;
  for (const name of Object.keys(pathSchema?.properties ?? {})) {
    if (Object.hasOwn(args, name)) path[name] = args[name] as string;
  }
  return { path, query: args as RawRequest['query'], jsonQuery: true, header, ...(tool.operation.spec.body ? { body: args } : {}) };
}

/**
 * The call a result answers, as the operation read it: the tool's name, and its parameters with their defaults (none
 * the operation does not take). Every tool call is a `POST /mcp`, so the request components a signature covers are the
 * same for all; and an answer need not say what it answers (a search's result does not name its filters). Inside the
 * result, the call is under the answer's `Content-Digest`, so a signed answer is one call's (docs/api.md, "Signed answers").
 */
function callOf(tool: McpTool, { path, query, body }: ValidRequest): { name: string; arguments: Record<string, unknown> } {
  return { name: tool.description.name, arguments: { ...path, ...query, ...(isPlainObject(body) ? body : {}) } };
}

const result = (body: unknown, call: ReturnType<typeof callOf>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
  _meta: { call },
});

/**
 * A refusal's `Retry-After` rides in `_meta.retry_after` (seconds, as the HTTP header): a tool result reaches the
 * agent through the SDK without the HTTP headers, and the limits' JSON-RPC error names it the same way (mcp-refusal.ts).
 */
const errorResult = (body: unknown, retryAfter?: number): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  isError: true,
  ...(retryAfter === undefined ? {} : { _meta: { retry_after: retryAfter } }),
});

/**
 * What a tool call's answer was read from: the stamp of its reading (shared/read-model/public-api/answer-policy.ts),
 * the data's age of an answer that needs fresh read models (the verification), which the POST /mcp answer carries as
 * `X-Data-Age`, the position of its data (`X-Read-Model-Position`: the stamp's, or its document's when read ahead of
 * it), and `once` for an answer so read, to be given once and never kept (a kept copy would be given again at the
 * stamp's position, as routes.ts keeps none).
 */
export type Stamped = (stamp: ReadStamp, dataAge?: number, position?: number, once?: boolean) => void;

/**
 * `stamped` is told what the answer was read from (`Stamped`), so that an answer kept for repeated calls is kept under
 * the stamp of its own data; a refusal (503: the read models cannot be vouched for) is an `isError` result with the
 * same detail and the HTTP answer's `Retry-After` as `_meta.retry_after`, and tells no stamp.
 */
export async function callTool(
  tool: McpTool, args: unknown, env: ReadingEnv, stamped?: Stamped, header: RawRequest['header'] = {},
): Promise<CallToolResult> {
  try {
    const request = tool.validate(asRequest(tool, isPlainObject(args) ? args : {}, header));
    const { answer, stamp, dataAge, position } = await answerInSnapshot(env)(tool.operation, request);
    if (stamp !== undefined) stamped?.(stamp, dataAge, position, answer.once === true);
    return answer.status === 200 ? result(answer.body, callOf(tool, request)) : errorResult(answer.body, answer.retryAfter);
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    // As the front door answers a 422: the issues bounded, each echoed input too (validation-issue.ts).
    return errorResult({ detail: error.issues });
  }
}
