import { expect } from 'chai';
import { clientIp, limitKey } from '../../read-api/rate-limit/client-ip.ts';

describe('rate-limit client identity', () => {
  it('is the socket peer when the proxy is not trusted, whatever X-Forwarded-For says', () => {
    expect(clientIp({ socketAddress: '192.0.2.10', forwardedFor: '203.0.113.5' }, false)).to.equal('192.0.2.10');
  });

  it('is the right-most X-Forwarded-For entry behind a trusted proxy', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: '1.2.3.4, 203.0.113.5' }, true)).to.equal('203.0.113.5');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: ['1.2.3.4', '203.0.113.6'] }, true)).to.equal('203.0.113.6');
  });

  it('falls back to the peer when the trusted header is empty or not an address', () => {
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: 'garbage' }, true)).to.equal('10.0.0.1');
    expect(clientIp({ socketAddress: '10.0.0.1', forwardedFor: ' , ' }, true)).to.equal('10.0.0.1');
  });

  it('reads IPv4-mapped IPv6 peers as IPv4', () => {
    expect(clientIp({ socketAddress: '::ffff:192.0.2.10', forwardedFor: undefined }, false)).to.equal('192.0.2.10');
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
