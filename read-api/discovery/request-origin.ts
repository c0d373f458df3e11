/**
 * Absolute links without `PUBLIC_BASE_URL`: the discovery files and the MCP resources then name the address the
 * connection reached this process at (shared/public-base-url.ts, `listeningOrigin`), so an example copied from them
 * works where it was read (`curl 'http://127.0.0.1:3000/api/public/status'`, not `curl '/api/public/status'`), and
 * never the request's `Host`, which the client writes (issue 42, item 4).
 */
import type { Context } from 'koa';
import { serviceBase, type BaseUrlConfig } from '../../shared/public-base-url.ts';

/** The configured base, else the listening origin of the request's connection, else empty (root-relative links). */
export const baseFor = (ctx: Context, publicBase: string): string => serviceBase({ PUBLIC_BASE_URL: publicBase }, ctx.req.socket);

/** Origins whose texts are kept: the addresses of this process a client can reach are few, but bounded all the same. */
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
