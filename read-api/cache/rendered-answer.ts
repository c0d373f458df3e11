/** An answer serialized once: the JSON bytes and their entity tag, ready to be sent as many times as asked. */
import { createHash } from 'node:crypto';

export interface RenderedAnswer {
  status: number;
  body: Buffer;
  /** Strong entity tag of `body`, quoted. */
  etag: string;
}

export function renderAnswer(status: number, body: unknown): RenderedAnswer {
  const bytes = Buffer.from(JSON.stringify(body));
  return { status, body: bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
}

/**
 * `If-None-Match` as RFC 9110 compares it for GET: weakly (`W/"x"` matches `"x"`), any tag of a list, or `*`.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag || header === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === etag || tag === '*' || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
