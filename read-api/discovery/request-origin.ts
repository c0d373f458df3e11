/**
 * Absolute links without `PUBLIC_BASE_URL`: the discovery files and the MCP resources then name the origin the
 * request reached, so an example copied from them works where it was read (`curl 'http://host:3000/api/public/status'`,
 * not `curl '/api/public/status'`).
 */
import type { Context } from 'koa';
import type { BaseUrlConfig } from '../../shared/public-base-url.ts';

/** A host name or IP address, with an optional port: anything else in `Host` gives no origin. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The configured base, else the request's origin (scheme and host, lower case), else empty (root-relative links). */
export function baseFor(ctx: Context, publicBase: string): string {
  if (publicBase !== '') return publicBase;
  const { host } = ctx;
  return HOST.test(host) ? `${ctx.protocol}://${host.toLowerCase()}` : '';
}

/** Origins whose texts are kept: the Host header is the client's, so what it can make the process keep is bounded. */
const KEPT_BASES = 16;

/** `build` once per base, for the first few bases; past them built on each call. */
export function perBase<T>(build: (base: string) => T): (base: string) => T {
  const kept = new Map<string, T>();
  return (base) => {
    const known = kept.get(base);
    if (known !== undefined) return known;
    const value = build(base);
    if (kept.size < KEPT_BASES) kept.set(base, value);
    return value;
  };
}

/** The configuration a text is built with for `base` (empty: the configuration as it is). */
export const withBase = <C extends BaseUrlConfig>(config: C, base: string): C => (base === '' ? config : { ...config, PUBLIC_BASE_URL: base });
