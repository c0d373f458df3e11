/**
 * IP address text as a client or a proxy writes it, read one way everywhere: IPv4 as is, IPv6 lower-case, and an
 * IPv4-mapped IPv6 address in any spelling (`::ffff:1.2.3.4`, `0:0:0:0:0:ffff:1.2.3.4`, `::ffff:0102:0304`) as the
 * IPv4 address it maps, so one client is one address however its socket or its proxy writes it.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The address normalized, or undefined when `raw` is not an IP address (brackets around IPv6 allowed). */
export function normalizeIp(raw: string): string | undefined {
  const address = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return undefined;
  const groups = expandIPv6(address);
  const mapped = groups.slice(0, 5).every((group) => group === '0000') && groups[5] === 'ffff';
  if (!mapped) return address.toLowerCase();
  const [high, low] = [parseInt(groups[6] as string, 16), parseInt(groups[7] as string, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The key a client counts under: IPv4 addresses one by one, IPv6 addresses by their /64 network, since one
 * subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function limitKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
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
