/**
 * What a public path is, decided once (docs/api.md "Rate limits"): `/api/public` and everything under it, and the
 * MCP endpoint `/mcp` ("Agents over MCP": each MCP request counts against the general limit), in any
 * letter case, with or without a trailing slash, percent-encoded or not. The router matches its routes the same
 * way (case-insensitive, trailing slash optional: `publicRouter` in routes.ts); a spelling it does not route (a
 * percent-encoded letter, say) still counts here, so no spelling of a public request escapes the limits.
 */
const PUBLIC_PATH = /^\/(?:api\/public(?:\/|$)|mcp\/?$)/i;

export function isPublicPath(path: string): boolean {
  return PUBLIC_PATH.test(path) || (path.includes('%') && PUBLIC_PATH.test(unescaped(path)));
}

/** Every `%XX` escape decoded as one byte; a malformed one is left as it is, where decodeURIComponent would throw. */
function unescaped(path: string): string {
  return path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
