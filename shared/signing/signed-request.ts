/**
 * The request a signed answer answers, echoed in the answer's `Signed-Request` header (`GET /path?query`). A
 * signature covers request components (`"@method";req`, `"@path";req`, `"@query";req`), which a saved response
 * does not otherwise carry; the echo lets `watchcat receipt verify` rebuild them from the receipt alone. The echo
 * itself needs no signature of its own: change it and those components, hence the signature base, change too.
 */
import type { ComponentParser } from 'http-message-signatures';

export const SIGNED_REQUEST_HEADER = 'Signed-Request';

export interface SignedRequest {
  method: string;
  /** The request target's path, as sent (still percent-encoded). */
  path: string;
  /** The query without its `?`; empty when there is none. */
  query: string;
}

export const formatSignedRequest = ({ method, path, query }: SignedRequest): string =>
  `${method} ${path}${query === '' ? '' : `?${query}`}`;

/** Reads a `Signed-Request` value; undefined when it is not `METHOD /path[?query]`. */
export function parseSignedRequest(value: string): SignedRequest | undefined {
  const match = /^([A-Z]+) (\/[^?\s]*)(?:\?(\S*))?$/.exec(value.trim());
  if (!match) return undefined;
  return { method: match[1] as string, path: match[2] as string, query: match[3] ?? '' };
}

/** The request components this service signs, with their RFC 9421 (section 2.2) values. */
const REQUEST_COMPONENTS: Record<string, (request: SignedRequest) => string> = {
  '@method': (request) => request.method,
  '@path': (request) => request.path,
  // Section 2.2.7: the query with its leading `?`, and a lone `?` when there is none.
  '@query': (request) => `?${request.query}`,
  '@request-target': (request) => `${request.path}${request.query === '' ? '' : `?${request.query}`}`,
};

export const isRequestComponent = (name: string): boolean => name in REQUEST_COMPONENTS;

/**
 * Gives the `;req` components their values from `request` rather than from a parsed URL, so that signer and
 * verifier read the very same bytes (a URL parser would normalize the path).
 */
export function requestComponentParser(request: SignedRequest): ComponentParser {
  return (name, params) => {
    const derive = REQUEST_COMPONENTS[name];
    return derive && params.has('req') ? [derive(request)] : null;
  };
}
