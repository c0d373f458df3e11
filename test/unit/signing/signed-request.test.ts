/**
 * The `Signed-Request` echo and the request components (shared/signing/signed-request.ts): the header's form
 * (`METHOD //authority/path[?query]`, a network-path reference, RFC 3986 section 4.2), the authority the service
 * signs under (shared/public-base-url.ts: its own, never the request's `Host`; RFC 9421 section 2.2.3: lower-cased),
 * and the `;req` components' values (RFC 9421 sections 2.2.2 to 2.2.7), all written out here.
 */
import { expect } from 'chai';
import { listeningOrigin, serviceAuthority } from '../../../shared/public-base-url.ts';
import {
  formatSignedRequest, parseSignedRequest, requestComponentParser, type SignedRequest,
} from '../../../shared/signing/signed-request.ts';

const withQuery: SignedRequest = { method: 'GET', authority: 'shop.example:8443', path: '/api/public/verify/AUR%2D1', query: 'lang=fr' };
const withoutQuery: SignedRequest = { ...withQuery, query: '' };

describe('Signed-Request', () => {
  it('writes the method and a network-path reference, with no "?" when there is no query', () => {
    expect(formatSignedRequest(withQuery)).to.equal('GET //shop.example:8443/api/public/verify/AUR%2D1?lang=fr');
    expect(formatSignedRequest(withoutQuery)).to.equal('GET //shop.example:8443/api/public/verify/AUR%2D1');
  });

  it('reads back what it writes, around optional whitespace', () => {
    expect(parseSignedRequest('GET //shop.example:8443/api/public/verify/AUR%2D1?lang=fr')).to.deep.equal(withQuery);
    expect(parseSignedRequest(' \tGET //shop.example:8443/api/public/verify/AUR%2D1 ')).to.deep.equal(withoutQuery);
    expect(parseSignedRequest('GET //shop.example:8443/p?')).to.deep.equal({ method: 'GET', authority: 'shop.example:8443', path: '/p', query: '' });
  });

  it('refuses a value with anything before the method or after the target', () => {
    expect(parseSignedRequest('xGET //shop.example/p')).to.equal(undefined);
    expect(parseSignedRequest('GET //shop.example/p HTTP/1.1')).to.equal(undefined);
    expect(parseSignedRequest('GET //shop.example/p?a=1 b')).to.equal(undefined);
    expect(parseSignedRequest('GET //Shop.Example/p'), 'an authority not lower-cased').to.equal(undefined);
  });

  it('signs under the authority of PUBLIC_BASE_URL, lower-cased, the default port left out, whatever the connection reached', () => {
    const socket = { localAddress: '10.0.0.5', localPort: 3000 };
    expect(serviceAuthority({ PUBLIC_BASE_URL: 'https://Shop.Example:8443/api/' }, socket)).to.equal('shop.example:8443');
    expect(serviceAuthority({ PUBLIC_BASE_URL: 'https://shop.example:443' }, socket)).to.equal('shop.example');
    expect(serviceAuthority({ PUBLIC_BASE_URL: 'http://[::1]:3000' }, socket)).to.equal('[::1]:3000');
  });

  it('without PUBLIC_BASE_URL, signs under the address and port the connection reached (issue 42)', () => {
    expect(serviceAuthority({}, { localAddress: '127.0.0.1', localPort: 3000 })).to.equal('127.0.0.1:3000');
    expect(serviceAuthority({}, { localAddress: '::ffff:172.30.10.5', localPort: 3000 }), 'IPv4-mapped').to.equal('172.30.10.5:3000');
    expect(serviceAuthority({}, { localAddress: '::1', localPort: 8080 })).to.equal('[::1]:8080');
    expect(listeningOrigin({ localAddress: '127.0.0.1', localPort: 3000, encrypted: true })).to.equal('https://127.0.0.1:3000');
  });

  it('names no authority for a connection with no local end, or one no authority can spell (the answer then goes out unsigned)', () => {
    expect(serviceAuthority({}, {})).to.equal(undefined);
    expect(serviceAuthority({}, { localAddress: 'fe80::1%eth0', localPort: 3000 }), 'a zone id').to.equal(undefined);
  });

  it('gives the request components their RFC 9421 values, only as ";req" components', () => {
    const req = new Map<string, string | number | boolean>([['req', true]]);
    const component = (request: SignedRequest, name: string, params = req) => requestComponentParser(request)(name, params, {} as never);
    expect(component(withQuery, '@method')).to.deep.equal(['GET']);
    expect(component(withQuery, '@authority')).to.deep.equal(['shop.example:8443']);
    expect(component(withQuery, '@path')).to.deep.equal(['/api/public/verify/AUR%2D1']);
    expect(component(withQuery, '@query')).to.deep.equal(['?lang=fr']);
    expect(component(withoutQuery, '@query'), 'section 2.2.7: a lone "?"').to.deep.equal(['?']);
    expect(component(withQuery, '@request-target')).to.deep.equal(['/api/public/verify/AUR%2D1?lang=fr']);
    expect(component(withoutQuery, '@request-target')).to.deep.equal(['/api/public/verify/AUR%2D1']);
    expect(component(withQuery, '@method', new Map()), 'the response\'s own, left to the library').to.equal(null);
    expect(component(withQuery, '@status'), 'not a request component').to.equal(null);
  });
});
