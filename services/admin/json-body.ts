/**
 * Reads a JSON request body with a hard size cap: above it the answer is 413 before anything is parsed, and the
 * rest of the upload is drained unread.
 */
import type { IncomingMessage } from 'node:http';
import { decodeBody } from '../../shared/public-api/validation/request-body.ts';

export const ADMIN_BODY_LIMIT = 16 * 1024;
/** A catalogue file is far larger than a command; only the import route accepts this much. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

function readText(req: IncomingMessage, limit: number): Promise<string> {
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.reject(new HttpError(413, 'Request body too large'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(new HttpError(413, 'Request body too large'));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** The body as JSON; an absent or malformed one is refused as the public API refuses it (`missing`, `json_invalid`). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readText(req, limit);
  return decodeBody(text.trim() === '' ? '' : text, req.headers['content-type']);
}
