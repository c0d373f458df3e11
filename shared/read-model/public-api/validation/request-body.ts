/**
 * Reads a request body with a hard cap and decodes it as FastAPI does. Above the cap the answer is 413 before
 * anything is parsed, and the rest of the stream is discarded unread (never buffered).
 *
 * Content types, as FastAPI treats them: no `Content-Type`, `application/json` or any `+json` type is parsed as
 * JSON; any other type is not parsed and the raw text is validated as the body, which fails with
 * `model_attributes_type` at `loc: ["body"]`. An empty body is a `missing` body.
 */
import type { IncomingMessage } from 'node:http';
import { issue, RequestValidationError } from './validation-issue.ts';
import { locateJsonSyntaxError } from './json-syntax-error.ts';

const BODY_LIMIT_BYTES = 16 * 1024;

export class PayloadTooLargeError extends Error {
  readonly status = 413;
  readonly expose = true;
  constructor() {
    super('Request body too large');
    this.name = 'PayloadTooLargeError';
  }
}

export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The client went away before its body was all sent: nothing to answer, and nothing wrong with the service. Its
 * status is nginx's 499 (client closed request), so metrics count it apart from server errors and the request log
 * says so; no alert on 5xx fires on it.
 */
export class ClientClosedRequestError extends Error {
  readonly status = CLIENT_CLOSED_REQUEST;
  readonly expose = false;
  constructor() {
    super('Client closed the request before its body was read');
    this.name = 'ClientClosedRequestError';
  }
}

/** The body as text, or `PayloadTooLargeError` as soon as it exceeds `limit` bytes (declared or received). */
export async function readBodyText(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<string> {
  return (await readBodyBytes(req, limit)).toString('utf8');
}

/** The body's bytes, undecoded, or `PayloadTooLargeError` as `readBodyText`. */
export function readBodyBytes(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(discard(req));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        cleanup();
        reject(discard(req));
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    // A body cut off mid-way (the client closed or reset its connection) ends with an `aborted` error, or a close.
    const onError = (error: Error) => {
      cleanup();
      reject(req.complete ? error : new ClientClosedRequestError());
    };
    const onClose = () => {
      cleanup();
      reject(new ClientClosedRequestError());
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function discard(req: IncomingMessage): PayloadTooLargeError {
  req.resume();
  return new PayloadTooLargeError();
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Decodes the body text; throws `RequestValidationError` for an absent or malformed body. */
export function decodeBody(text: string, contentType: string | undefined): unknown {
  if (text.length === 0) throw new RequestValidationError([issue.missing(['body'], null)]);
  if (!isJsonContentType(contentType)) throw new RequestValidationError([issue.modelAttributesType(['body'], text)]);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const located = locateJsonSyntaxError(text) ?? { offset: 0, error: 'Expecting value' };
    throw new RequestValidationError([issue.jsonInvalid(located.offset, located.error)]);
  }
}
