import { expect } from 'chai';
import { parseApiKeys, presentedKey } from '../../../services/admin/api-keys.ts';

describe('admin API keys', () => {
  it('gives each key the union of its scopes, and nothing to an unknown or empty key', () => {
    const ring = parseApiKeys('a1:catalogue, b2:serials,b2:catalogue');
    expect([...(ring.scopesOf('a1') ?? [])]).to.deep.equal(['catalogue']);
    expect([...(ring.scopesOf('b2') ?? [])].sort()).to.deep.equal(['catalogue', 'serials']);
    expect(ring.scopesOf('a')).to.equal(null);
    expect(ring.scopesOf('')).to.equal(null);
    expect(ring.scopesOf(undefined)).to.equal(null);
  });

  it('refuses a configuration entry without a known scope, without echoing the key', () => {
    expect(() => parseApiKeys('secret-key:admin')).to.throw(/entry 1 is not/);
    expect(() => parseApiKeys('secret-key:admin')).not.to.throw(/secret-key/);
    expect(() => parseApiKeys('no-scope')).to.throw(/key:scope/);
  });

  it('reads the key from a Bearer authorization or an X-API-Key header', () => {
    expect(presentedKey({ authorization: 'Bearer k1' })).to.equal('k1');
    expect(presentedKey({ 'x-api-key': 'k2' })).to.equal('k2');
    expect(presentedKey({ authorization: 'Basic abc' })).to.equal(undefined);
  });
});
