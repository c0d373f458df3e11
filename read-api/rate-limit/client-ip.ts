/**
 * Who a request counts against. The client is the socket's peer; `X-Forwarded-For` is read only behind a trusted
 * proxy, and then only its right-most entry: that is the address our proxy itself saw and appended, whereas every
 * entry to its left was written by the client and could be forged to dodge the limits. (We trust exactly one hop.)
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface PeerRequest {
  socketAddress: string | undefined;
  forwardedFor: string | string[] | undefined;
}

/** The client address of a request, normalized (IPv4-mapped IPv6 addresses read as IPv4). */
export function clientIp(request: PeerRequest, trustProxy: boolean): string {
  const peer = normalizeIp(request.socketAddress ?? '') ?? 'unknown';
  if (!trustProxy || request.forwardedFor === undefined) return peer;
  const header = Array.isArray(request.forwardedFor) ? request.forwardedFor.join(',') : request.forwardedFor;
  const rightMost = header.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').at(-1);
  return (rightMost !== undefined ? normalizeIp(rightMost) : undefined) ?? peer;
}

/**
 * The rate-limit key of an address: IPv4 addresses one by one, IPv6 addresses by their /64 network, since one
 * subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function limitKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

function normalizeIp(raw: string): string | undefined {
  const address = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address.toLowerCase();
}

/** The eight 16-bit groups of an IPv6 address, zero-padded, with `::`, a zone and a trailing IPv4 resolved. */
function expandIPv6(address: string): string[] {
  let text = address.split('%')[0] ?? address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => group.toLowerCase().padStart(4, '0'));
}
