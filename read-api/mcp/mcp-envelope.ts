/**
 * A body that is JSON but no JSON-RPC 2.0 message (a number, `null`, a `jsonrpc` other than "2.0", an id that is an
 * object or a fraction, no method): JSON-RPC 2.0 calls it an Invalid Request (-32600) and keeps Parse error (-32700)
 * for text that is no JSON at all, which the SDK's transport answers for both. Checked here first against the SDK's
 * own message schema, and answered to the request's id when it has one a client can match it by (a string or an
 * integer), else to null.
 */
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import type { McpSdk } from './mcp-sdk.ts';

interface InvalidRequest {
  id: string | number | null;
  message: string;
}

/** An id a client could have sent and can match an answer by: what MCP's `RequestId` is. */
const matchableId = (id: unknown): string | number | null => (typeof id === 'string' || Number.isInteger(id) ? id as string | number : null);

/** In words, the first thing that keeps `message` from being a JSON-RPC 2.0 request, notification or response. */
function whatIsWrong(message: unknown): string {
  if (!isPlainObject(message)) return 'a JSON-RPC message is an object';
  if (message['jsonrpc'] !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in message && matchableId(message['id']) === null) return 'id must be a string or an integer';
  if ('method' in message && typeof message['method'] !== 'string') return 'method must be a string';
  if ('params' in message && !isPlainObject(message['params'])) return 'params must be an object';
  return 'not a request, a notification or a response';
}

/** Why `message` (the body parsed, undefined when it is no JSON) is no JSON-RPC message, or undefined when it is one or is no JSON. */
export function invalidRequest(sdk: McpSdk, message: unknown): InvalidRequest | undefined {
  if (message === undefined || sdk.types.JSONRPCMessageSchema.safeParse(message).success) return undefined;
  return { id: isPlainObject(message) ? matchableId(message['id']) : null, message: `Invalid Request: ${whatIsWrong(message)}` };
}
