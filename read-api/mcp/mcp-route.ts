/**
 * `POST /mcp` (docs/api.md, "Agents over MCP"): the Model Context Protocol over the SDK's Streamable HTTP transport,
 * stateless, JSON answers, mounted in the public Koa app like every other route. The transport is the SDK's web
 * standard one: it takes a `Request` and gives back a `Response`, which is copied onto Koa's response, so the
 * answer goes back out through the whole chain (front door, signing, metrics) as any other answer does.
 *
 * Before the transport: the body is read under the same 16 KiB cap as every public body (413 beyond; read once, by
 * the general limit first: mcp-message.ts), a batch is refused with a JSON-RPC error (MCP no longer has batches,
 * and one must not smuggle several calls past the limits), as is JSON that is no JSON-RPC message (mcp-envelope.ts),
 * and a `verify_serial` call goes through the verification limits, as `GET /api/public/verify/{serial}` does; then params that are not the method's get -32602 saying what is
 * wrong (mcp-params.ts). The general limit counts `/mcp` like any public path (rate-limit/public-path.ts), protocol
 * housekeeping apart, and a refusal is a JSON-RPC error (mcp-refusal.ts). A repeated call of a cacheable tool is
 * answered with the SDK's earlier answer to it (mcp-answer-cache.ts), after those limits. An error (a JSON-RPC error,
 * or a tool result with `isError`, which carries the operation's 422 and its echoed input) is never signed, as a
 * 422 is not (signing/sign-answers.ts); nor is the answer to a call whose id is free text, which the answer echoes.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import { readModelHeaders } from '../../shared/read-model/public-api/validation/request-validator.ts';
import { JSON_TYPE } from '../middleware/front-door.ts';
import { preflight } from '../middleware/preflight.ts';
import { leaveUnsigned } from '../signing/sign-answers.ts';
import { baseFor } from '../discovery/request-origin.ts';
import { MCP_PATH } from '../../shared/read-model/public-api/operations/status.operation.ts';
import type { McpAnswerCache, TransportAnswer } from './mcp-answer-cache.ts';
import type { ReadStamp } from '../../shared/read-model/public-api/read-model-clock.ts';
import { MCP_ROUTE_PATH, mcpMessage, parsedOrUndefined } from './mcp-message.ts';
import { invalidRequest } from './mcp-envelope.ts';
import { invalidParams } from './mcp-params.ts';
import { mcpSdk } from './mcp-sdk.ts';
import { createMcpServer, type McpServerKit } from './mcp-server.ts';
import { VERIFY_TOOL } from './mcp-tools.ts';
import type { Stamped } from './tool-call.ts';

interface McpRouteDeps {
  kit: McpServerKit;
  /** Answers to repeated calls of the cacheable tools. */
  answers: McpAnswerCache;
  /** The configured public base URL, or empty: resource URIs then use the request's own scheme and host. */
  publicBase: string;
  /** The verification limits (per IP, then global), as mounted in front of the verification operation. */
  verifyLimit?: Middleware;
}

/** The request headers the transport reads; the rest stay out of the `Request` it is given. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'];
/** Only a label for the transport's request info: nothing is fetched from it. */
const TRANSPORT_URL = `http://mcp.localhost${MCP_PATH}`;

/** An MCP client in a web page sends the protocol's headers besides those of any public request (middleware/preflight.ts). */
const MCP_PREFLIGHT = preflight('POST, OPTIONS', ['Accept', 'Mcp-Protocol-Version']);

/**
 * The route, its CORS preflight, and a 405 for other methods (answered in the contract's shape by the front door),
 * as one middleware that other paths pass straight through: mounted before the operations' router, an MCP request
 * is not matched against every operation's route first.
 */
export function mcpRoutes(deps: McpRouteDeps): Middleware {
  // Case-insensitive, trailing slash optional: the way `isPublicPath` reads `/mcp`, so no spelling escapes a count.
  const router = new Router({ sensitive: false, strict: false });
  router.post('mcp', MCP_PATH, (ctx) => answerMcp(ctx, deps));
  router.options(MCP_PATH, MCP_PREFLIGHT);
  const routes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  return (ctx, next) => (MCP_ROUTE_PATH.test(ctx.path) ? routes(ctx, () => allowedMethods(ctx, next)) : next());
}

async function answerMcp(ctx: Context, deps: McpRouteDeps): Promise<void> {
  const { message } = await mcpMessage(ctx);
  const sdk = await mcpSdk();
  if (Array.isArray(message)) {
    sendJsonRpcError(ctx, 400, sdk.types.ErrorCode.InvalidRequest, 'Invalid Request: batches are not accepted, send one message per request');
    return;
  }
  const serve = async () => {
    if (ctx.req.headers['accept-signature'] !== undefined && !plainRequestId(message)) leaveUnsigned(ctx);
    const invalid = invalidParams(sdk, message);
    if (invalid) {
      // As the SDK answers a request's error: 200, the request's id.
      sendJsonRpcError(ctx, 200, sdk.types.ErrorCode.InvalidParams, invalid.message, invalid.id);
      return;
    }
    // After the params: a request whose params are no object is no JSON-RPC message to the SDK, but -32602 says more.
    const malformed = invalidRequest(sdk, message);
    if (malformed) {
      sendJsonRpcError(ctx, 400, sdk.types.ErrorCode.InvalidRequest, malformed.message, malformed.id);
      return;
    }
    const call = deps.answers.call(message, ctx.req.headers);
    const cached = call?.cached();
    if (cached) {
      sendTransportAnswer(ctx, cached);
      return;
    }
    let stamp: ReadStamp | undefined;
    let dataAge: number | undefined;
    let position: number | undefined;
    let once = false;
    const answer = await serveThroughTransport(ctx, deps, message, (read, age, at, readAhead) => {
      stamp = read;
      dataAge = age;
      position = at;
      once = readAhead === true;
    });
    if (ctx.req.headers['accept-signature'] !== undefined && isErrorAnswer(answer)) leaveUnsigned(ctx);
    sendTransportAnswer(ctx, answer);
    // A tool call's answer says where its data stands, and a verify_serial answer how old it is, as the HTTP operations
    // do (one call per POST); a signed one then pins a tree of the log holding no event after it (sign-answers.ts).
    const read = stamp as ReadStamp | undefined;
    if (read !== undefined) ctx.set('X-Read-Model-Position', String(position ?? read.behindAt ?? read.position));
    if (dataAge !== undefined) ctx.set('X-Data-Age', String(dataAge));
    // An answer read ahead of its stamp is given once, never kept (tool-call.ts, `Stamped`).
    call?.keep(answer, once ? undefined : stamp);
  };
  if (deps.verifyLimit && isVerifyCall(message)) await deps.verifyLimit(ctx, serve);
  else await serve();
}

/**
 * A JSON-RPC id that is a number or a short token (an SDK's counter, a UUID). The answer echoes the id in its body:
 * free text there would be signed under the manufacture's key, as a 422's echoed input would (docs/api.md, "Signed
 * answers"), so an answer to any other id goes out unsigned.
 */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,64}$/;
function plainRequestId(message: unknown): boolean {
  const id = isPlainObject(message) ? message['id'] : undefined;
  return typeof id === 'number' || (typeof id === 'string' && PLAIN_ID.test(id));
}

function isVerifyCall(message: unknown): boolean {
  return isPlainObject(message) && message['method'] === 'tools/call' && isPlainObject(message['params'])
    && message['params']['name'] === VERIFY_TOOL;
}

async function serveThroughTransport(
  ctx: Context, deps: McpRouteDeps, message: unknown, stamped: Stamped,
): Promise<TransportAnswer> {
  const sdk = await mcpSdk();
  const server = createMcpServer(sdk, deps.kit, baseFor(ctx, deps.publicBase), stamped, readModelHeaders(ctx.req.headers));
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const name of TRANSPORT_HEADERS) {
      const value = ctx.req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    // The transport runs only the message read here (and limited by it): for a body that is not JSON it gets no text
    // to read its own way (its decoder drops a byte order mark that JSON.parse refuses), and answers its parse error.
    const request = new Request(TRANSPORT_URL, { method: 'POST', headers, ...(message === undefined ? { body: '' } : {}) });
    const response = await transport.handleRequest(request, message === undefined ? {} : { parsedBody: message });
    const answered: [string, string][] = [];
    response.headers.forEach((value, name) => {
      if (name !== 'content-type') answered.push([name, value]);
    });
    const json = response.headers.get('content-type')?.startsWith('application/json') === true;
    return { status: response.status, headers: answered, body: Buffer.from(await response.arrayBuffer()), json };
  } finally {
    await server.close();
  }
}

/** The transport's answer as Koa's: status, headers, body; JSON in the contract's content type. */
function sendTransportAnswer(ctx: Context, answer: TransportAnswer): void {
  ctx.status = answer.status;
  for (const [name, value] of answer.headers) ctx.set(name, value);
  ctx.body = answer.body;
  // A 202 (notifications only) has no content, and says no type.
  if (answer.json) ctx.set('Content-Type', JSON_TYPE);
  else ctx.remove('Content-Type');
}

/** A JSON-RPC error, or a tool result that is an error. */
function isErrorAnswer(answer: TransportAnswer): boolean {
  if (!answer.json) return false;
  const parsed = parsedOrUndefined(answer.body.toString());
  return isPlainObject(parsed) && (parsed['error'] !== undefined || (isPlainObject(parsed['result']) && parsed['result']['isError'] === true));
}

function sendJsonRpcError(ctx: Context, status: number, code: number, message: string, id: string | number | null = null): void {
  leaveUnsigned(ctx);
  ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}
