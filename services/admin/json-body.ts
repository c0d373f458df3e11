/**
 * Reads a JSON request body with a hard size cap, as the public API does (request-body.ts): above it the answer is
 * 413 before anything is parsed, and the rest of the upload is drained unread; a body cut off by a client that went
 * away is a `ClientClosedRequestError` (499), not a server error.
 */
import type { IncomingMessage } from 'node:http';
import { decodeBody, PayloadTooLargeError, readBodyText } from '../../shared/public-api/validation/request-body.ts';

export const ADMIN_BODY_LIMIT = 16 * 1024;
/** A catalogue file is far larger than a command; only the import route accepts this much. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The body as JSON; an absent or malformed one is refused as the public API refuses it (`missing`, `json_invalid`). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readBodyText(req, limit).catch((error: unknown) => {
    throw error instanceof PayloadTooLargeError ? new HttpError(413, error.message) : error;
  });
  return decodeBody(text.trim() === '' ? '' : text, req.headers['content-type']);
}
