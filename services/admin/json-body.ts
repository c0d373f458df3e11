/**
 * Reads a JSON request body with a hard size cap, as the public API does (request-body.ts): above it the answer is
 * 413 before anything is parsed, and the rest of the upload is drained unread; a body cut off by a client that went
 * away is a `ClientClosedRequestError` (499), not a server error.
 */
import type { IncomingMessage } from 'node:http';
import { decodeBody, PayloadTooLargeError, readBodyBytes } from '../../shared/read-model/public-api/validation/request-body.ts';

export const ADMIN_BODY_LIMIT = 16 * 1024;
/** A catalogue file is far larger than a command; only the import route accepts this much. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

/** At most this much of a refused `Content-Type` is echoed: enough to recognise it, whatever a client sends. */
const ECHOED_CONTENT_TYPE = 100;

/**
 * A body not declared as JSON is refused before it is read, 415, with the header to send: a back-office tool that
 * posts a form (`curl -d` does by default) would otherwise be told only that its body is not an object. Unlike the
 * public API, which follows FastAPI in reading a body without `Content-Type` as JSON, the admin API writes: it takes
 * what is declared as JSON only (`application/json` or a `+json` type).
 */
function assertJsonContentType(contentType: string | undefined): void {
  const [type = '', ...parameters] = (contentType ?? '').split(';');
  const mediaType = type.trim().toLowerCase();
  if ((mediaType === 'application/json' || mediaType.endsWith('+json')) && declaresUtf8(parameters)) return;
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type: ${contentType.slice(0, ECHOED_CONTENT_TYPE)}`;
  throw new HttpError(415, `Unsupported Media Type: send the body as JSON with the header Content-Type: application/json (this request has ${sent})`);
}

/**
 * JSON is UTF-8 (RFC 8259, section 8.1): a `charset` other than UTF-8 is refused rather than ignored, since its text
 * would be read as UTF-8 all the same and written into the catalogue garbled.
 */
function declaresUtf8(parameters: string[]): boolean {
  return parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') return true;
    return ['utf-8', 'utf8'].includes(value.trim().replace(/^"(.*)"$/, '$1').toLowerCase());
  });
}

/** Keeps a byte-order mark as a character, as `Buffer#toString` did: JSON.parse refuses it (json_invalid). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of a body declared as JSON, not decoded yet; a blank one is empty. */
export async function readJsonText(req: IncomingMessage, limit: number): Promise<string> {
  assertJsonContentType(req.headers['content-type']);
  const bytes = await readBodyBytes(req, limit).catch((error: unknown) => {
    throw error instanceof PayloadTooLargeError ? new HttpError(413, error.message) : error;
  });
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    // Decoded leniently, each byte that is not UTF-8 would become U+FFFD in the events (a Latin-1 `è`, say).
    throw new HttpError(400, 'Bad Request: the body is not valid UTF-8; send JSON encoded in UTF-8');
  }
  return text.trim() === '' ? '' : text;
}

/** The body as JSON; an absent or malformed one is refused as the public API refuses it (`missing`, `json_invalid`). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return decodeBody(await readJsonText(req, limit), req.headers['content-type']);
}
