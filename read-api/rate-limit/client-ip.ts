/**
 * Who a request counts against. The client is the socket's peer, unless that peer is one of the trusted proxies
 * (`TRUST_PROXY`): then `X-Forwarded-For` is read from the right, each trusted proxy skipped, and the first address
 * that is not a trusted proxy is the client. Entries further left were written by whoever that was, possibly to
 * dodge the limits, so they are never read. Several `X-Forwarded-For` headers count as one list, in order.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../../shared/config/config.ts';
import { limitKey, normalizeIp } from '../../shared/net/ip-address.ts';
import { parseTrustedProxies, type TrustedProxies } from '../../shared/net/trusted-proxies.ts';

export { limitKey } from '../../shared/net/ip-address.ts';

interface PeerRequest {
  socketAddress: string | undefined;
  forwardedFor: string | string[] | undefined;
}

/** The client address of a request, normalized (IPv4-mapped IPv6 addresses read as IPv4). */
export function clientIp(request: PeerRequest, trusted: TrustedProxies): string {
  const peer = normalizeIp(request.socketAddress ?? '') ?? 'unknown';
  if (request.forwardedFor === undefined || !trusted.has(peer)) return peer;
  const header = Array.isArray(request.forwardedFor) ? request.forwardedFor.join(',') : request.forwardedFor;
  const hops = header.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i] as string);
    // Not an address: the trusted proxy to its right is the last hop known for sure.
    if (hop === undefined) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/**
 * The proxy list's answers remembered per address: Node's BlockList check costs microseconds per call (a native
 * address object each time), twice per request when `X-Forwarded-For` changes from one request to the next, as it
 * does on every request of a proxy in front of many clients. At most `size` addresses, forgotten all at once.
 */
export function rememberedTrust(trusted: TrustedProxies, size = 4096): TrustedProxies {
  const known = new Map<string, boolean>();
  return {
    has(address) {
      let answer = known.get(address);
      if (answer === undefined) {
        if (known.size >= size) known.clear();
        answer = trusted.has(address);
        known.set(address, answer);
      }
      return answer;
    },
  };
}

/** The key a request counts under: its client address (IPv6 by /64). */
export function requestClientKey(config: Pick<Config, 'TRUST_PROXY'>): (req: IncomingMessage) => string {
  // A keep-alive connection brings many requests from one peer: its key is worked out again only when the header
  // it depends on changes.
  const trusted = rememberedTrust(parseTrustedProxies(config.TRUST_PROXY));
  const known = new WeakMap<Socket, { forwardedFor: string | string[] | undefined; key: string }>();
  return (req) => {
    const forwardedFor = req.headers['x-forwarded-for'];
    const last = known.get(req.socket);
    if (last !== undefined && last.forwardedFor === forwardedFor) return last.key;
    const key = limitKey(clientIp({ socketAddress: req.socket.remoteAddress, forwardedFor }, trusted));
    known.set(req.socket, { forwardedFor, key });
    return key;
  };
}
