/**
 * Issue 40, defect 5, as real processes on MongoDB (FerretDB in CI) and Redis: Redis stopped, then the projector
 * that holds the serials lease SIGKILLed, and a theft reported. On main (6d537c4) takeover waited for a queued job,
 * so the survivor took nothing while Redis was down (90 s in the review), with `/readyz` and `/healthz` green. Now a
 * projector polls the leases on its own timer (projector/lease-poll.ts): the survivor takes the dead worker's
 * projections while Redis is still down, readiness and health name them while nobody owns them, and all is green
 * once Redis is back. The survivor is frozen a while after the kill, so that the replica's red comes before any
 * takeover rather than in a race with it. Seeded (the serial, the moment of the kill), the seed printed; waits are
 * bounded generously, and the assertions are on order and outcome.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { PROJECTION_NAMES } from '../../shared/read-model/projections/index.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { startLeaseTopology, waitFor, type HealthAnswer, type LeaseTopology } from '../support/lease-topology.ts';

const SEED = Number(process.env['LEASE_SEED'] ?? 40_005);
/** Far above a lease (TOPOLOGY_LEASE_MS) and a poll on a loaded machine, below the 90 s the defect cost. */
const BOUND_MS = 80_000;

describeMongo('takeover while Redis is down (real processes)', 'the Redis-down lease takeover', function (leg) {
  this.timeout(300_000);
  let topology: LeaseTopology | undefined;
  let redisDown = false;
  after(async function () {
    if (redisDown) await topology?.redis.start();
    await topology?.close();
  });

  it('with Redis stopped and a worker SIGKILLed, the survivor takes its projections through the lease poll, readiness and health red while nobody owns them, all green once Redis is back', async function () {
    const random = seededRandom(SEED);
    topology = await startLeaseTopology(leg);
    const workers = [await topology.startProjector(), await topology.startProjector()];
    await waitFor('every projection leased', 60_000, async () => ((await topology!.leaseOwners()).size === PROJECTION_NAMES.length || undefined));
    const serial = `AUR-2024-${between(random, 100_000, 999_999)}`;
    const registered = await topology.adminCall('POST', '/admin/serials', { serial, reference: 'AUR-LU-002', year: 2024 });
    await waitFor(`${serial} projected`, 60_000, async () => ((await readProjectionStates(topology!.store))
      .some((state) => state.name === 'serials' && state.position >= registered) || undefined));
    const serialsOwner = (await topology.leaseOwners()).get('serials')!;
    const victim = workers.find((worker) => serialsOwner.includes(`:${worker.process.child.pid}:`))!;
    const survivor = workers.find((worker) => worker !== victim)!;

    await topology.redis.stop(true);
    redisDown = true;
    await Promise.all(workers.map((worker) => worker.process.waitForLine(/job queue error/)));
    const killAfterMs = between(random, 0, 3_000);
    console.log(`      seed ${SEED} (LEASE_SEED): serial ${serial}, the serials owner killed ${killAfterMs} ms after both workers met Redis down`);
    await sleep(killAfterMs);
    const orphaned = await topology.heldBy(victim);
    survivor.process.child.kill('SIGSTOP');
    await victim.process.kill();
    await topology.adminCall('POST', `/admin/serials/${serial}/stolen`);
    const red = await waitFor('/readyz 503 naming serials while nobody owns it', BOUND_MS, async () => {
      const ready = await topology!.readiness();
      return ready.status === 503 && ready.ownerless.includes('serials') ? ready : undefined;
    });
    survivor.process.child.kill('SIGCONT');

    const healthSeen: HealthAnswer[] = [];
    await waitFor('the survivor took every projection of the dead worker and projected the theft, Redis still down', BOUND_MS, async () => {
      healthSeen.push(await topology!.health(survivor));
      const taken = await topology!.heldBy(survivor);
      return orphaned.every((name) => taken.includes(name)) && (await topology!.verification(serial)) === 'STOLEN' ? true : undefined;
    });
    expect(redisDown, 'Redis was down throughout the takeover').to.equal(true);
    console.log(`      /readyz named ${red.ownerless.join(', ')}; the survivor took ${orphaned.join(', ')} with Redis down`);
    expect(orphaned, 'the dead worker held the serials lease').to.include('serials');
    expect(healthSeen.some((h) => h.status === 503 && h.ownerless.includes('serials')), 'the survivor\'s /healthz 503 naming serials').to.equal(true);

    await topology.redis.start();
    redisDown = false;
    const healed = await waitFor('ready and healthy with the queue reachable again', BOUND_MS, async () => {
      const [ready, health] = await Promise.all([topology!.readiness(), topology!.health(survivor)]);
      return ready.status === 200 && health.status === 200 && health.checks['queue'] === 'ok' ? { ready, health } : undefined;
    });
    expect([healed.ready.ownerless, healed.health.ownerless]).to.deep.equal([[], []]);
    expect(await topology.verification(serial)).to.equal('STOLEN');
  });
});
