/**
 * The first middleware of the public app (inside the metrics), kept as one for speed: security and CORS headers on
 * every answer (errors included); a JSON 400 for a request target that names no path (one a URL parser refuses,
 * `*`, an authority); then the error rule of the contract: validation errors as 422 `{detail: [...]}`, other
 * client errors shown as `{detail: message}`, a client's hang-up as 499 (not a server error), server errors logged
 * (method and path, never the query string: the request log leaves it out) and answered with nothing internal; the JSON
 * bodies of 404 (no route) and 405 (known path, wrong method); last, the signature of the final answer, whose
 * failure is a server error like any other. Nothing thrown leaves it: no request gets Koa's text/plain 500.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import type { Logger } from '../../shared/logging/logger.ts';
import { type AnswerSigner, withdrawSignature } from '../signing/sign-answers.ts';
import { RequestValidationError } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { ClientClosedRequestError } from '../../shared/read-model/public-api/validation/request-body.ts';
import { loggedPath } from './request-log.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON API never frames, sniffs, loads or leaks anything. The CORS headers depend on `Origin`, so every answer
 * says so to caches (`Vary`), whether or not this request carried one.
 */
const SECURITY_HEADERS: [string, string][] = [
  ['vary', 'Origin'],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
];
const CORS_EXPOSED = 'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Read-Model-Position, '
  + 'X-Data-Age, Content-Digest, Signature, Signature-Input, Signed-Request, Watchcat-Checkpoint';

const BAD_REQUEST = Buffer.from('{"detail":"Bad Request"}');
const NOT_FOUND = Buffer.from('{"detail":"Not Found"}');
const METHOD_NOT_ALLOWED = Buffer.from('{"detail":"Method Not Allowed"}');
const INTERNAL = Buffer.from('{"detail":"Internal Server Error"}');

export const WITH_CORS: [string, string][] = [
  ...SECURITY_HEADERS,
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', CORS_EXPOSED],
];

/** The headers every answer carries: security headers, and CORS ones when the request has an `Origin`. */
function frontHeaders(origin: string | undefined): readonly [string, string][] {
  return origin === undefined ? SECURITY_HEADERS : WITH_CORS;
}

function sendJsonBytes(ctx: ParameterizedContext, status: number, body: Buffer): void {
  ctx.set('Content-Type', JSON_TYPE);
  ctx.status = status;
  ctx.body = body;
}

interface HttpErrorLike {
  status?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

export function frontDoor(logger: Logger, sign?: AnswerSigner): Middleware {
  return async (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of frontHeaders(ctx.req.headers.origin)) res.setHeader(name, value);
    if (!namesPath(ctx)) {
      sendJsonBytes(ctx, 400, BAD_REQUEST);
      return;
    }
    try {
      await next();
      finishAnswer(ctx);
    } catch (error) {
      try {
        answerError(ctx, error, logger);
      } catch (failure) {
        // Building the error answer failed too: still the contract's shape, never Koa's text/plain default.
        logger.error({ err: error, answerFailure: String(failure), method: ctx.method, path: loggedPath(ctx) }, 'request failed');
        sendJsonBytes(ctx, 500, INTERNAL);
      }
    }
    // Checked here as well, so that an answer nobody asked to sign costs no promise.
    if (sign === undefined || ctx.req.headers['accept-signature'] === undefined) return;
    try {
      await sign(ctx);
    } catch (error) {
      withdrawSignature(ctx);
      logger.error({ err: error, method: ctx.method, path: loggedPath(ctx) }, 'signing the answer failed');
      sendJsonBytes(ctx, 500, INTERNAL);
    }
  };
}

/**
 * Whether the request target gives a path: Koa reads it with a URL parser that throws on some absolute-form
 * targets (`http://[::1/x`) that Node lets through, and `*` or an authority-form target names no resource here.
 */
function namesPath(ctx: ParameterizedContext): boolean {
  try {
    return ctx.path.startsWith('/');
  } catch {
    return false;
  }
}

/** The JSON bodies of the answers the router leaves without one. */
function finishAnswer(ctx: ParameterizedContext): void {
  if (ctx.body != null || ctx.status === 304 || ctx.status === 204) return;
  // The router leaves 405 for a known path with a wrong method, 501 for a method it does not know at all.
  if (ctx.status === 405 || (ctx.status === 501 && ctx.response.get('Allow') !== '')) sendJsonBytes(ctx, 405, METHOD_NOT_ALLOWED);
  else if (ctx.status === 404 || ctx.status === 501) sendJsonBytes(ctx, 404, NOT_FOUND);
}

function answerError(ctx: ParameterizedContext, error: unknown, logger: Logger): void {
  if (error instanceof RequestValidationError) {
    // Bounded where it is made (validation-issue.ts): at most the listed issues, each echoing a capped input.
    sendJsonBytes(ctx, 422, Buffer.from(JSON.stringify({ detail: error.issues })));
    return;
  }
  // A hang-up: counted and logged as 499 by the metrics and the request log, never as a server error.
  if (error instanceof ClientClosedRequestError) {
    ctx.status = error.status;
    return;
  }
  const httpError = (typeof error === 'object' && error !== null ? error : {}) as HttpErrorLike;
  const status = typeof httpError.status === 'number' ? httpError.status : 500;
  if (status >= 400 && status < 500 && httpError.expose !== false) {
    if (typeof httpError.headers === 'object' && httpError.headers !== null) {
      for (const [name, value] of Object.entries(httpError.headers)) ctx.set(name, String(value));
    }
    // The rest of an oversized body is discarded unread; the connection is not reused after it.
    if (status === 413) ctx.set('Connection', 'close');
    sendJsonBytes(ctx, status, Buffer.from(JSON.stringify({ detail: String(httpError.message ?? 'Error') })));
    return;
  }
  logger.error({ err: error, method: ctx.method, path: loggedPath(ctx) }, 'request failed');
  sendJsonBytes(ctx, 500, INTERNAL);
}
