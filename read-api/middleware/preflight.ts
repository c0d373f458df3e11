/**
 * The answer to a browser's CORS preflight (the front door adds `Access-Control-Allow-Origin`, as on every answer):
 * the methods of the path, and the request headers a page on another site may send to the public port, the same
 * for every public route (operations, discovery files, the transparency log's). Any request
 * may ask for a signed answer (`Accept-Signature`) or for data at or past its own change (`X-Min-Position`,
 * docs/api.md "Read your writes"); a JSON body needs `Content-Type`; an MCP client sends the protocol's own headers.
 */
import type { Middleware } from 'koa';

const PUBLIC_REQUEST_HEADERS = ['Content-Type', 'Accept-Signature', 'X-Min-Position'];

export function preflight(methods: string, extraHeaders: readonly string[] = []): Middleware {
  const headers: [string, string][] = [
    ['Access-Control-Allow-Methods', methods],
    ['Access-Control-Allow-Headers', [...PUBLIC_REQUEST_HEADERS, ...extraHeaders].join(', ')],
    // Kept a while by the browser: the answer never changes.
    ['Access-Control-Max-Age', '600'],
  ];
  return (ctx) => {
    for (const [name, value] of headers) ctx.set(name, value);
    ctx.status = 204;
  };
}

/** The preflight of every public GET route. */
export const GET_PREFLIGHT = preflight('GET, HEAD, OPTIONS');
