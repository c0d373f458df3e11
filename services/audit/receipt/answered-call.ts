/**
 * The MCP tool call a saved answer answers, when it names one. Every MCP call is a `POST /mcp`, so the request a
 * receipt echoes (`Signed-Request`) does not say which tool was called with which arguments; a tool's result names
 * its call in `_meta.call` (read-api/mcp/tool-call.ts), inside the body its `Content-Digest` covers
 * (docs/api.md, "Signed answers").
 */
import { isPlainObject } from '../../../shared/read-model/public-api/validation/request-schema.ts';

/** `name {arguments}` of the JSON-RPC result in `body`, or undefined when the body names no call. */
export function answeredCall(body: Buffer): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const result = isPlainObject(message) ? message['result'] : undefined;
  const meta = isPlainObject(result) ? result['_meta'] : undefined;
  const call = isPlainObject(meta) ? meta['call'] : undefined;
  if (!isPlainObject(call) || typeof call['name'] !== 'string' || !isPlainObject(call['arguments'])) return undefined;
  return `${call['name']} ${JSON.stringify(call['arguments'])}`;
}
