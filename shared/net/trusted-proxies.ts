/**
 * `TRUST_PROXY`: the proxies whose `X-Forwarded-For` is believed, as addresses or CIDR ranges separated by commas
 * (`10.0.0.1, 192.168.0.0/16, fd00::/8`); `false` or empty trusts none. A bare `true` is refused: trusting every
 * peer would let any client pick its own address and dodge the rate limits.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';
import { normalizeIp } from './ip-address.ts';

export interface TrustedProxies {
  /** Whether `address` (normalized, see ip-address.ts) is one of the proxies. */
  has(address: string): boolean;
}

export const NO_TRUSTED_PROXY: TrustedProxies = { has: () => false };

const familyOf = (address: string) => (isIPv4(address) ? 'ipv4' : 'ipv6');

/** Throws one message naming every entry that is neither an address nor a range. */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const entries = spec.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0 || (entries.length === 1 && entries[0]?.toLowerCase() === 'false')) return NO_TRUSTED_PROXY;
  const list = new BlockList();
  const bad: string[] = [];
  for (const entry of entries) {
    const range = parseRange(entry);
    if (!range) bad.push(entry);
    else if (range.bits === undefined) list.addAddress(range.address, familyOf(range.address));
    else list.addSubnet(range.address, range.bits, familyOf(range.address));
  }
  if (bad.length > 0) {
    throw new Error(`TRUST_PROXY must name the trusted proxies as addresses or CIDR ranges separated by commas, or be false (not: ${bad.join(', ')})`);
  }
  return {
    has: (address) => {
      const bare = address.split('%')[0] ?? '';
      return isIP(bare) !== 0 && list.check(bare, familyOf(bare));
    },
  };
}

/** `address` or `address/bits`, normalized: a range written in mapped IPv6 (`::ffff:10.0.0.0/104`) is an IPv4 one. */
function parseRange(entry: string): { address: string; bits: number | undefined } | undefined {
  const [text = '', prefix, extra] = entry.split('/');
  const address = normalizeIp(text);
  if (!address || extra !== undefined) return undefined;
  if (prefix === undefined) return { address, bits: undefined };
  const written = isIPv4(text) ? 32 : 128;
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > written) return undefined;
  const lost = written - (isIPv4(address) ? 32 : 128);
  return bits - lost < 0 ? undefined : { address, bits: bits - lost };
}
