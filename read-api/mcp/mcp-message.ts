/**
 * What a request to `/mcp` asks, read once: its body (under the 16 KiB cap of every public body) and the JSON-RPC
 * message in it. The general limit reads it before it counts the request (rate-limit/rate-limits.ts), the route
 * after (mcp-route.ts), and both get the same reading.
 *
 * Protocol housekeeping (docs/api.md, "Agents over MCP") is what a client sends to open and keep a session, not to
 * ask for data: `initialize`, notifications, `ping`, the lists, the `server/discover` probe of newer clients, and
 * every method but POST on `/mcp` (`GET` is 405, `OPTIONS` a CORS preflight). Its answers are built once and cost
 * next to nothing, so it counts against the files limit rather than the general one: a session's handshake takes
 * none of a client's requests a minute. It stays limited (the files limit), and a client whose general budget is
 * spent can still connect, which mcp-go needs (it takes a 4xx to `initialize` for a server of the older SSE transport).
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { readBodyText } from '../../shared/read-model/public-api/validation/request-body.ts';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';

/** The path the MCP route matches: `/mcp` in any case, trailing slash optional (the router's own reading). */
export const MCP_ROUTE_PATH = /^\/mcp\/?$/i;

interface McpMessage {
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON (the transport answers it with a parse error). */
  message: unknown;
}

/** The JSON-RPC methods that are housekeeping, besides every `notifications/...`. */
const HOUSEKEEPING = new Set(['initialize', 'ping', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'server/discover']);

const readings = new WeakMap<IncomingMessage, Promise<McpMessage>>();

/** The body of a POST to `/mcp` and its message, read on the first call and given again to every later one. */
export function mcpMessage(ctx: Context): Promise<McpMessage> {
  let reading = readings.get(ctx.req);
  if (reading === undefined) {
    reading = readBodyText(ctx.req).then((text) => ({ text, message: parsedOrUndefined(text) }));
    readings.set(ctx.req, reading);
  }
  return reading;
}

export function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether a request to the MCP route is housekeeping. A body that cannot be read (too large, cut off) is not: it
 * counts as a call, and the route answers the reading's error.
 */
export async function isMcpHousekeeping(ctx: Context): Promise<boolean> {
  if (ctx.method !== 'POST') return true;
  let message: unknown;
  try {
    ({ message } = await mcpMessage(ctx));
  } catch {
    return false;
  }
  // A batch is never housekeeping: no message may ride past the limits on another's back.
  if (!isPlainObject(message) || typeof message['method'] !== 'string') return false;
  const method = message['method'];
  return HOUSEKEEPING.has(method) || method.startsWith('notifications/');
}

/** The id a JSON-RPC answer to this request carries: the request's own, or null (a notification, a batch, no JSON). */
export async function mcpRequestId(ctx: Context): Promise<string | number | null> {
  if (ctx.method !== 'POST') return null;
  try {
    const { message } = await mcpMessage(ctx);
    const id = isPlainObject(message) ? message['id'] : undefined;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
