import { expect } from 'chai';
import { parseApiKeys, presentedKey } from '../../../services/admin/api-keys.ts';

const A = 'a1-0123456789abcdef0123456789abcdef';
const B = 'b2-fedcba9876543210fedcba9876543210';

describe('admin API keys', () => {
  it('gives each key the union of its scopes and an id by its place, and nothing to an unknown or empty key', () => {
    const ring = parseApiKeys(`${A}:catalogue, ${B}:serials,${B}:catalogue`);
    expect(ring.identify(A)?.keyId).to.equal('key-1');
    expect([...(ring.identify(A)?.scopes ?? [])]).to.deep.equal(['catalogue']);
    expect(ring.identify(B)?.keyId).to.equal('key-2');
    expect([...(ring.identify(B)?.scopes ?? [])].sort()).to.deep.equal(['catalogue', 'serials']);
    expect(ring.identify(A.slice(0, -1))).to.equal(null);
    expect(ring.identify('')).to.equal(null);
    expect(ring.identify(undefined)).to.equal(null);
  });

  it('refuses a configuration entry without a known scope, without echoing the key', () => {
    expect(() => parseApiKeys(`${A}:admin`)).to.throw(/entry 1 is not/);
    expect(() => parseApiKeys(`${A}:admin`)).not.to.throw(new RegExp(A));
    expect(() => parseApiKeys('no-scope')).to.throw(/key:scope/);
  });

  it('refuses keys shorter than 32 characters and placeholders, naming every bad entry at once (issue 17, finding 3)', () => {
    expect(() => parseApiKeys('a:catalogue')).to.throw(/entry 1 has a key of 1 characters, fewer than 32/);
    expect(() => parseApiKeys(`${'k'.repeat(31)}x:catalogue`)).not.to.throw();
    for (const placeholder of ['change-me-catalogue-0000000000000000', 'CHANGEME-please-now-0000000000000000', 'replace-me-with-a-real-key-00000000',
      'your-api-key-goes-here-000000000000', 'an-example-admin-key-000000000000000', 'x'.repeat(40)]) {
      expect(() => parseApiKeys(`${A}:catalogue,${placeholder}:serials`), placeholder).to.throw(/entry 2 has a placeholder key/);
    }
    expect(() => parseApiKeys(`short:catalogue,${A}:serials,change-me-0000000000000000000000000:serials`))
      .to.throw(/^ADMIN_API_KEYS: entry 1 has a key of 5 characters, fewer than 32; entry 3 has a placeholder key/);
  });

  it('drops spaces around a key, so the key as sent in a header matches (issue 17, finding 8)', () => {
    const ring = parseApiKeys(`  ${A}  :catalogue ,  ${B}\t: serials`);
    expect(ring.identify(A)?.keyId).to.equal('key-1');
    expect(ring.identify(presentedKey({ 'x-api-key': ` ${B} ` }))?.keyId).to.equal('key-2');
  });

  it('reads the key from a Bearer authorization or an X-API-Key header', () => {
    expect(presentedKey({ authorization: 'Bearer k1' })).to.equal('k1');
    expect(presentedKey({ 'x-api-key': 'k2' })).to.equal('k2');
    expect(presentedKey({ authorization: 'Basic abc' })).to.equal(undefined);
  });
});
