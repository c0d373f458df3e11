import { expect } from 'chai';
import { clientIp, limitKey, rememberedTrust } from '../../read-api/rate-limit/client-ip.ts';
import { NO_TRUSTED_PROXY, parseTrustedProxies } from '../../shared/net/trusted-proxies.ts';

describe('rate-limit client identity', () => {
  const proxies = parseTrustedProxies('10.0.0.1, 192.168.0.0/16, fd00::/8');

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientIp({ socketAddress: '192.0.2.10', forwardedFor: '203.0.113.5' }, NO_TRUSTED_PROXY)).to.equal('192.0.2.10');
    expect(clientIp({ socketAddress: '192.0.2.10', forwardedFor: '203.0.113.5' }, parseTrustedProxies('false'))).to.equal('192.0.2.10');
  });

  it('is the socket peer when the peer is not one of the named proxies (issue 17, finding 4)', () => {
    expect(clientIp({ socketAddress: '192.0.2.10', forwardedFor: '203.0.113.5' }, proxies)).to.equal('192.0.2.10');
    expect(clientIp({ socketAddress: '10.0.0.2', forwardedFor: '203.0.113.5' }, proxies)).to.equal('10.0.0.2');
  });

  it('reads X-Forwarded-For from the right behind a named proxy, skipping trusted proxies, up to the first other address', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: '1.2.3.4, 203.0.113.5' }, proxies)).to.equal('203.0.113.5');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: '1.2.3.4, 203.0.113.5, 192.168.4.4, 10.0.0.1' }, proxies)).to.equal('203.0.113.5');
    expect(clientIp({ socketAddress: '192.168.9.9', forwardedFor: '203.0.113.7' }, proxies)).to.equal('203.0.113.7');
    expect(clientIp({ socketAddress: 'fd00::5', forwardedFor: '2001:db8::1' }, proxies)).to.equal('2001:db8::1');
  });

  it('reads several X-Forwarded-For headers as one list, in order', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: ['1.2.3.4', '203.0.113.6'] }, proxies)).to.equal('203.0.113.6');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: ['1.2.3.4, 203.0.113.6', '192.168.1.1'] }, proxies)).to.equal('203.0.113.6');
  });

  it('stops at the last trusted hop when the header is empty, not an address, or only proxies', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: 'garbage' }, proxies)).to.equal('10.0.0.1');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: ' , ' }, proxies)).to.equal('10.0.0.1');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: 'garbage, 192.168.0.7' }, proxies)).to.equal('192.168.0.7');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: '192.168.0.8, 192.168.0.7' }, proxies)).to.equal('192.168.0.8');
  });

  it('ignores empty entries of X-Forwarded-For, with or without spaces, as RFC 9110 (section 5.6.1) says of any list', () => {
    for (const header of ['203.0.113.8, ', '203.0.113.8,,', ', 203.0.113.8 ,', '203.0.113.8,  ,192.168.0.7']) {
      expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: header }, proxies), header).to.equal('203.0.113.8');
    }
  });

  it('is the trusted proxy itself when it sends no X-Forwarded-For, and "unknown" for a socket without an address', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: undefined }, proxies)).to.equal('10.0.0.1');
    expect(clientIp({ socketAddress: undefined, forwardedFor: undefined }, NO_TRUSTED_PROXY)).to.equal('unknown');
  });

  it('reads IPv4-mapped IPv6 addresses, in every spelling, as IPv4: peers, header entries and proxies', () => {
    for (const mapped of ['::ffff:192.0.2.10', '::FFFF:192.0.2.10', '0:0:0:0:0:ffff:192.0.2.10', '::ffff:c000:20a', '0000:0000:0000:0000:0000:ffff:c000:020a']) {
      expect(clientIp({ socketAddress: mapped, forwardedFor: undefined }, NO_TRUSTED_PROXY), mapped).to.equal('192.0.2.10');
      expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: mapped }, proxies), mapped).to.equal('192.0.2.10');
      expect(clientIp({ socketAddress: '::ffff:10.0.0.1', forwardedFor: `1.1.1.1, ${mapped}` }, proxies), mapped).to.equal('192.0.2.10');
    }
    expect(limitKey(clientIp({ socketAddress: '::ffff:c000:20a', forwardedFor: undefined }, NO_TRUSTED_PROXY))).to.equal('192.0.2.10');
    expect(parseTrustedProxies('::ffff:10.0.0.0/104').has('10.200.0.1')).to.equal(true);
  });

  it('asks the proxy list once per address, and again after forgetting them all at its bound (issue 22)', () => {
    const asked: string[] = [];
    const trust = rememberedTrust({ has: (address) => { asked.push(address); return address === '10.0.0.1'; } }, 2);
    expect([trust.has('10.0.0.1'), trust.has('203.0.113.5'), trust.has('10.0.0.1'), trust.has('203.0.113.5')]).to.deep.equal([true, false, true, false]);
    expect(asked).to.deep.equal(['10.0.0.1', '203.0.113.5']);
    expect(trust.has('203.0.113.6')).to.equal(false);
    expect(trust.has('10.0.0.1')).to.equal(true);
    expect(asked).to.deep.equal(['10.0.0.1', '203.0.113.5', '203.0.113.6', '10.0.0.1']);
  });

  it('refuses a TRUST_PROXY that names no proxy, naming the bad entries', () => {
    for (const spec of ['true', '10.0.0.1, proxy.example', '10.0.0.0/33', '10.0.0.0/8/1', 'fd00::/129']) {
      expect(() => parseTrustedProxies(spec), spec).to.throw(/TRUST_PROXY must name the trusted proxies/);
    }
    expect(() => parseTrustedProxies('10.0.0.1, proxy.example')).to.throw(/\(not: proxy\.example\)$/);
  });

  it('keys IPv4 addresses one by one and IPv6 addresses by /64, however they are written', () => {
    expect(limitKey('192.0.2.10')).to.equal('192.0.2.10');
    expect(limitKey('2001:db8:1:2::1')).to.equal('2001:0db8:0001:0002::/64');
    expect(limitKey('2001:DB8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:0db8:0001:0002::/64');
    expect(limitKey('::1')).to.equal('0000:0000:0000:0000::/64');
    expect(limitKey('fe80::1%eth0')).to.equal('fe80:0000:0000:0000::/64');
    expect(limitKey('64:ff9b::192.0.2.33')).to.equal('0064:ff9b:0000:0000::/64');
    expect(limitKey('2001:db8:1:3::1')).not.to.equal(limitKey('2001:db8:1:2::1'));
  });
});
