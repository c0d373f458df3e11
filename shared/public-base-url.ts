/**
 * Where the public API is reached. Without `PUBLIC_BASE_URL` the service cannot know its own address (a proxy may
 * sit in front), so links are root-relative and resolve against whatever served them (docs/api.md: the OpenAPI
 * `servers` entry is then `/`). Where a text needs absolute links, or a signature an authority, and no base is
 * configured, the service names the address the connection reached it at (`listeningOrigin`): never the request's
 * `Host` or an absolute-form target, which the client writes (issue 42, item 4: a signed llms.txt linking to
 * `http://evil.example/`). Behind a proxy, set `PUBLIC_BASE_URL`, or the texts name the address the proxy calls.
 */
import type { Config } from './config/config.ts';
import { isAuthority } from './signing/signed-request.ts';

export type BaseUrlConfig = Pick<Config, 'PUBLIC_BASE_URL'>;

/** The base without a trailing slash, prefixed to absolute paths; empty when none is configured. */
export const baseUrl = (config: BaseUrlConfig): string => (config.PUBLIC_BASE_URL ?? '').replace(/\/$/, '');

/** Where a back-office tool on the same machine reaches the public API: the configured base, else this host's `PORT`. */
export const deploymentUrl = (config: BaseUrlConfig & Pick<Config, 'PORT'>): string => baseUrl(config) || `http://127.0.0.1:${config.PORT}`;

/** The base itself as a URL reference: the configured one, else `/`. */
export const baseUrlOrRoot = (config: BaseUrlConfig): string => baseUrl(config) || '/';

/** The end of a connection at this process (a `net.Socket`): its local address and port, and whether it is TLS. */
interface LocalEnd {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  encrypted?: boolean;
}

/**
 * The origin a connection reached this process at: the address and port of the socket's local end (with a wildcard
 * `HOST`, the interface the client connected to), an IPv4-mapped address as IPv4; undefined for a socket without one.
 */
export function listeningOrigin(socket: LocalEnd): string | undefined {
  const { localAddress, localPort } = socket;
  if (!localAddress || !localPort) return undefined;
  const address = localAddress.startsWith('::ffff:') && localAddress.includes('.') ? localAddress.slice(7) : localAddress;
  return `${socket.encrypted ? 'https' : 'http'}://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

/** The base a text links from: the configured one, else the listening origin of the connection; empty when neither is known. */
export const serviceBase = (config: BaseUrlConfig, socket: LocalEnd): string => baseUrl(config) || (listeningOrigin(socket) ?? '');

/**
 * The authority a signed answer names as `"@authority";req` (and echoes in `Signed-Request`): the host and port of
 * `serviceBase`, lower-cased, the scheme's default port left out; undefined when it is none `@authority` may hold
 * (the answer then goes out unsigned).
 */
export function serviceAuthority(config: BaseUrlConfig, socket: LocalEnd): string | undefined {
  const base = serviceBase(config, socket);
  let host: string;
  try {
    host = new URL(base).host.toLowerCase();
  } catch {
    return undefined;
  }
  return isAuthority(host) ? host : undefined;
}
