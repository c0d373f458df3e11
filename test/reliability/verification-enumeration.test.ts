/**
 * Serial enumeration (issue 7, item 5), against the whole read API: the verification answer must not tell a
 * registered serial from an unregistered one by its fields or its timing, and the per-IP limit must not be dodged by
 * spreading the requests over many addresses (global budget) or over one IPv6 /64 (the network counts as one).
 */
import { expect } from 'chai';
import { send } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function verify(api: ReadApiUnderTest, serial: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await send(api.url, `/api/public/verify/${serial}`, { headers });
  return { response, ms: performance.now() - started };
}

describe('serial verification against enumeration', function () {
  this.timeout(30_000);
  const open: ReadApiUnderTest[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const api = await startReadApiUnderTest({ env });
    open.push(api);
    return api;
  };
  afterEach(async function () {
    await Promise.all(open.splice(0).map((api) => api.close()));
  });

  it('answers registered and unregistered serials with the same fields and a similar time', async function () {
    const api = await start({ TRUST_PROXY: '127.0.0.1' });
    // What an enumerator wants to learn is which serials exist: a registered serial (authentic or stolen) against
    // unknown ones, odd-looking but valid ones among them. Rounds interleave the groups, so load hits both alike.
    // Every request comes from an address of its own, as from a botnet, so none is answered from a client's kept
    // answer and every one reaches the lookup whose time is measured.
    const groups: Record<string, string[]> = {
      found: ['AUR-0001', 'AUR-0666', 'aur-0001'],
      notFound: ['AUR-9999', 'ZX-20240001', '----', 'Z'.repeat(32)],
    };
    const times: Record<string, number[]> = { found: [], notFound: [] };
    const shapes = new Set<string>();
    for (let round = 0; round < 60; round++) {
      for (const [g, [group, serials]] of Object.entries(groups).entries()) {
        for (const [i, serial] of serials.entries()) {
          const { response, ms } = await verify(api, serial, { 'x-forwarded-for': `10.${round}.${g}.${i}` });
          expect(response.status, serial).to.equal(200);
          const body = response.json<Record<string, unknown>>();
          expect(body['verification_status'], serial).to.equal(group === 'found' ? (serial === 'AUR-0666' ? 'STOLEN' : 'AUTHENTIC') : 'NOT_FOUND');
          shapes.add(Object.keys(body).join(','));
          times[group]!.push(ms);
        }
      }
    }
    expect([...shapes]).to.have.length(1);
    const [found, notFound] = [median(times['found']!), median(times['notFound']!)];
    console.log(`      median verification time: registered ${found.toFixed(2)} ms, unregistered ${notFound.toFixed(2)} ms`);
    // Loopback medians are a fraction of a millisecond; a separate code path would show as a multiple.
    expect(Math.abs(found - notFound), `registered ${found} ms vs unregistered ${notFound} ms`).to.be.below(Math.max(0.5, 0.5 * Math.min(found, notFound)));
  });

  it('caps verifications from many addresses together with the global budget, in the contract\'s words', async function () {
    const api = await start({ TRUST_PROXY: '127.0.0.1', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '5' });
    const statuses: number[] = [];
    for (let i = 1; i <= 7; i++) {
      const { response } = await verify(api, 'AUR-0001', { 'x-forwarded-for': `198.51.100.${i}` });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(response.json()).to.deep.equal({ detail: 'Rate limit exceeded: 5 per 1 minute' });
        expect(Number(response.headers['retry-after'])).to.be.within(1, 60);
      }
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429, 429]);
    // The catalogue is not part of that budget.
    expect((await send(api.url, '/api/public/catalogue', { headers: { 'x-forwarded-for': '198.51.100.9' } })).status).to.equal(200);
  });

  it('counts every address of one IPv6 /64 as one client, and another /64 apart', async function () {
    const api = await start({ TRUST_PROXY: '127.0.0.1', VERIFY_RATE_LIMIT_PER_MINUTE: '3' });
    const from = async (ip: string) => (await verify(api, 'AUR-0001', { 'x-forwarded-for': ip })).response.status;
    const sameNetwork = ['2001:db8:aa:bb::1', '2001:db8:aa:bb:1:2:3:4', '2001:0db8:00aa:00bb:ffff:ffff:ffff:ffff', '2001:db8:aa:bb::99'];
    const statuses: number[] = [];
    for (const ip of sameNetwork) statuses.push(await from(ip));
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    expect(await from('2001:db8:aa:bc::1')).to.equal(200);
  });
});
