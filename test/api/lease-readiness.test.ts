/**
 * Issue 40, item 5: `/readyz` tells the truth about who keeps the read models. A projection whose lease this process
 * has watched unchanged for a whole lease has no live owner, whatever expiry its holder wrote (a holder whose clock
 * ran ahead wrote one far in the future); one renewed is owned, even when the expiry written is long past (a holder
 * whose clock runs behind). And with the projectors' queue unreachable, a read model that is not fresh makes the
 * process not ready, where staleness alone does not.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { leaseId, type LeaseDoc } from '../../shared/read-model/projections/control-docs.ts';
import { send } from '../support/http.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { until } from '../support/until.ts';
import { loadFixtureCatalogue } from './support/catalogue-fixture.ts';

/** Short, so that a test watches several leases go by; stated in the lease as its owner writes it. */
const TTL_MS = 300;

const lease = (renewals: number, expiresAt: number): LeaseDoc => ({
  _id: leaseId('serials'), projection: 'serials', owner: 'worker-1', token: 1, renewals, ttl_ms: TTL_MS, expires_at: expiresAt, standing: true,
});

const readiness = async (api: ReadApiUnderTest) => {
  const answer = await send(api.opsUrl, '/readyz');
  return { status: answer.status, checks: answer.json<{ checks: Record<string, unknown> }>().checks };
};

describe('readiness and the projections\' owners and queue (issue 40)', () => {
  let api: ReadApiUnderTest | undefined;
  let store: ReadStore;
  beforeEach(async () => {
    store = createMemoryReadStore();
    await loadFixtureCatalogue(store);
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('is 503 naming a projection whose lease nobody renewed for a whole lease, though it says it expires in a day; 200 once it is renewed again', async () => {
    await store.setControl(lease(0, Date.now() + 86_400_000), {}, true);
    api = await startReadApiUnderTest({ readStore: store });
    await until('not ready', async () => (await readiness(api!)).status === 503, 5_000);
    expect((await readiness(api)).checks['ownerless_projections']).to.deep.equal(['serials']);
    await store.setControl(lease(1, Date.now() + 86_400_000), {}, false);
    await until('ready again once renewed', async () => (await readiness(api!)).status === 200, 5_000);
    expect((await readiness(api)).checks['ownerless_projections']).to.deep.equal([]);
  });

  it('stays 200 while the lease is renewed, though every expiry written is long past', async () => {
    let renewals = 0;
    await store.setControl(lease(renewals, Date.now() - 150_000), {}, true);
    api = await startReadApiUnderTest({ readStore: store });
    const answers: number[] = [];
    // Five leases' worth, renewed at a third of one as an owner does, with readiness asked in between.
    while (renewals < 15) {
      await new Promise((resolve) => setTimeout(resolve, TTL_MS / 3));
      renewals += 1;
      await store.setControl(lease(renewals, Date.now() - 150_000), {}, false);
      answers.push((await readiness(api)).status);
    }
    expect([...new Set(answers)]).to.deep.equal([200]);
  });

  it('is 503 saying the queue is unreachable while a read model is stale, not for staleness alone nor for the queue alone', async () => {
    let reachable = false;
    api = await startReadApiUnderTest({ readStore: store, env: { READ_MODEL_MAX_LAG_SECONDS: '1' }, queueReachable: () => reachable });
    const fresh = await readiness(api);
    expect([fresh.status, fresh.checks['queue']], 'the queue down, the read models fresh').to.deep.equal([200, 'unreachable']);
    await until('not ready once a read model is stale', async () => (await readiness(api!)).status === 503, 5_000);
    reachable = true;
    const stale = await readiness(api);
    expect([stale.status, stale.checks['queue']], 'the queue back, the read models still stale').to.deep.equal([200, 'ok']);
  });
});
