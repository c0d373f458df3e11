/**
 * Issue 29, item 2: the read API counts the answers it was asked to sign (`answers_signed_total{outcome}` on its
 * operations port): one signed, one whose `Accept-Signature` is ignored (not a structured-fields dictionary, as
 * docs/api.md's "Signed answers" lets it), and nothing for a request that asked for no signature.
 */
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

describe('signing metrics', function () {
  this.timeout(20_000);
  let api: ReadApiUnderTest | undefined;
  afterEach(async () => api?.close());

  it('count signed and unsigned answers to requests asking for a signature, and nothing for the others', async () => {
    api = await startReadApiUnderTest();
    const signed = await send(api.url, '/api/public/collections', { headers: { 'accept-signature': 'sig1=("@status" "content-digest");alg="ed25519"' } });
    expect(signed.headers['signature']).to.be.a('string');
    const ignored = await send(api.url, '/api/public/collections', { headers: { 'accept-signature': '"not a dictionary"' } });
    expect(ignored.headers['signature']).to.equal(undefined);
    await send(api.url, '/api/public/collections');
    const metrics = await (await fetch(`${api.opsUrl}/metrics`)).text();
    const counted = [...metrics.matchAll(/^answers_signed_total\{outcome="(\w+)"\} (\d+)$/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(counted.sort()).to.deep.equal(['signed 1', 'unsigned 1']);
  });
});
