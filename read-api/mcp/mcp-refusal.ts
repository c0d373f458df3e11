/**
 * A request to `/mcp` refused by a rate limit, answered in JSON-RPC (docs/api.md, "Agents over MCP"): still HTTP
 * 429 with `Retry-After` and the figures of the limit, but the body a JSON-RPC error, to the request's id, whose
 * message says when to try again and whose `data` holds the usual `detail` and `retry_after` (seconds, as the
 * header), the usual `detail` also beside it. The operations' `{detail}` body is no JSON-RPC message: mcp-go read it as an empty result ("unexpected
 * end of JSON input").
 *
 * A JSON-RPC error rather than an `isError` tool result: at 429 the SDK's `Client` (TypeScript) throws a
 * `StreamableHTTPError` that quotes the body, whichever it is, and the official Go SDK reads no body of a 429 at all
 * (it reports "rejected by transport: ... Too Many Requests" and keeps the session); a JSON-RPC error is what a client
 * decodes from an HTTP error (mcp-go does, and the Go SDK does for the statuses it reads), and it answers every
 * method, not only `tools/call`.
 *
 * Mounted in front of the general limit, so that it sees the refusals of every limit a request to `/mcp` meets (the
 * general, files and verification limits).
 */
import type { Middleware } from 'koa';
import { JSON_TYPE } from '../middleware/front-door.ts';
import { MCP_ROUTE_PATH, mcpRequestId, parsedOrUndefined } from './mcp-message.ts';

/** In the range JSON-RPC leaves to servers (-32000 to -32099), used by neither MCP nor its SDKs; 29 as in 429. */
const RATE_LIMITED = -32029;

export const mcpRefusals: Middleware = async (ctx, next) => {
  if (!MCP_ROUTE_PATH.test(ctx.path)) return next();
  await next();
  if (ctx.status !== 429) return;
  const refusal = parsedOrUndefined(String(ctx.body)) as { detail?: unknown } | undefined;
  const detail = String(refusal?.detail);
  const retryAfter = Number(ctx.response.get('Retry-After'));
  const error = { code: RATE_LIMITED, message: `${detail}; retry after ${retryAfter} s`, data: { detail, retry_after: retryAfter } };
  // `detail` kept at the top as in every 429 (docs/api.md, "Rate limits"): JSON-RPC readers ignore a member they do
  // not know, and a client that reads the usual body still finds it.
  ctx.body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: await mcpRequestId(ctx), error, detail }));
  ctx.set('Content-Type', JSON_TYPE);
};
