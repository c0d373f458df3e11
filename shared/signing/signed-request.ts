/**
 * The request a signed answer answers, echoed in the answer's `Signed-Request` header as a method and a
 * network-path reference (`GET //host:port/path?query`, RFC 3986 section 4.2). A signature covers request
 * components (`"@method";req`, `"@authority";req`, `"@path";req`, `"@query";req`), which a saved response does
 * not otherwise carry; the echo lets `watchcat receipt verify` rebuild them from the receipt alone. The echo itself
 * needs no signature of its own: change it and those components, hence the signature base, change too.
 */
import type { ComponentParser } from 'http-message-signatures';

export const SIGNED_REQUEST_HEADER = 'Signed-Request';

export interface SignedRequest {
  method: string;
  /**
   * The deployment that answered (RFC 9421 section 2.2.3: host lower-cased), as the service names itself, never as
   * the request's `Host` names it (shared/public-base-url.ts, `serviceAuthority`).
   */
  authority: string;
  /** The request target's path, as sent (still percent-encoded). */
  path: string;
  /** The query without its `?`; empty when there is none. */
  query: string;
}

export const formatSignedRequest = ({ method, authority, path, query }: SignedRequest): string =>
  `${method} //${authority}${path}${query === '' ? '' : `?${query}`}`;

/** Reads a `Signed-Request` value; undefined when it is not `METHOD //authority/path[?query]`. */
export function parseSignedRequest(value: string): SignedRequest | undefined {
  const match = /^([A-Z]+) \/\/([^/?\s]+)(\/[^?\s]*)(?:\?(\S*))?$/.exec(value.trim());
  if (!match || !AUTHORITY.test(match[2] as string)) return undefined;
  return { method: match[1] as string, authority: match[2] as string, path: match[3] as string, query: match[4] ?? '' };
}

/** A host (registered name or IP literal in brackets) and an optional port, lower-case: what `@authority` may hold. */
const AUTHORITY = /^(?:[a-z0-9._~%!$&'()*+,;=-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

export const isAuthority = (value: string): boolean => AUTHORITY.test(value);

/** The request components this service signs, with their RFC 9421 (section 2.2) values. */
const REQUEST_COMPONENTS = new Map<string, (request: SignedRequest) => string>([
  ['@method', (request) => request.method],
  ['@authority', (request) => request.authority],
  ['@path', (request) => request.path],
  // Section 2.2.7: the query with its leading `?`, and a lone `?` when there is none.
  ['@query', (request) => `?${request.query}`],
  ['@request-target', (request) => `${request.path}${request.query === '' ? '' : `?${request.query}`}`],
]);

export const isRequestComponent = (name: string): boolean => REQUEST_COMPONENTS.has(name);

/**
 * Gives the `;req` components their values from `request` rather than from a parsed URL, so that signer and
 * verifier read the very same bytes (a URL parser would normalize the path).
 */
export function requestComponentParser(request: SignedRequest): ComponentParser {
  return (name, params) => {
    const derive = REQUEST_COMPONENTS.get(name);
    return derive && params.has('req') ? [derive(request)] : null;
  };
}
