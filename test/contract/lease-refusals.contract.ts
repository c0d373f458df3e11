/**
 * What an owner of a projection lease (shared/read-model/projections/lease.ts) is told when a store refuses it, run
 * against every store: a checkpoint put back under its own token (a restored copy) is named as such, apart from one a
 * newer owner took; and a write that fails for another reason than its fence is not taken for a lost lease, which
 * would end the job quietly instead of retrying it (projector/catch-up-agent.ts).
 */
import { expect } from 'chai';
import { ReadStoreUnavailableError, type GenerationStore, type ReadStore } from '../../shared/ports/read-store.ts';
import { checkpointId } from '../../shared/read-model/projections/control-docs.ts';
import { LeaseLostError, ProjectionLease } from '../../shared/read-model/projections/lease.ts';
import type { LeaseWatch } from '../../shared/read-model/projections/lease-watch.ts';
import { FakeClock, TTL, eachTestsLeaseWorld, refusal, serials } from './lease.contract.ts';

export function leaseRefusalsContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`projection lease refusals: ${name}`, function () {
    let store: ReadStore;
    let clock: FakeClock;
    let watch: LeaseWatch;
    eachTestsLeaseWorld(factory, (fresh) => ({ store, clock, watch } = fresh));
    const acquire = (owner: string) => ProjectionLease.acquire(store, serials, owner, { ttlMs: TTL, clock, watch });

    it('a checkpoint put back behind its owner under the same token (a restored copy) refuses the owner\'s next one, saying where it stands', async function () {
      const owner = (await acquire('a'))!;
      await owner.saveCheckpoint(5);
      const id = checkpointId('serials', owner.generation);
      const stored = (await store.readControl()).find((doc) => doc._id === id)!;
      expect(await store.setControl({ ...stored, position: 3 }, { position: 5 }, false)).to.equal(true);
      expect(await refusal(owner.saveCheckpoint(7))).to.be.instanceOf(LeaseLostError).and.have.property('message',
        `lease of projection serials lost: the checkpoint of generation ${owner.generation} is at 3, not where token 1 stored it (5)`);
    });

    it('a checkpoint a newer owner took refuses the older one\'s, naming the newer owner', async function () {
      const old = (await acquire('a'))!;
      await old.saveCheckpoint(5);
      clock.advance(TTL + 1);
      await (await acquire('b'))!.saveCheckpoint(8);
      expect(await refusal(old.saveCheckpoint(7))).to.be.instanceOf(LeaseLostError).and.have.property('message',
        `lease of projection serials lost: the checkpoint of generation ${old.generation} has a newer owner than token 1`);
    });

    it('a write refused by a newer token is a lost lease naming that token; one the store fails is thrown as it is', async function () {
      const old = (await acquire('a'))!;
      clock.advance(TTL + 1);
      await acquire('b');
      const live = store.generation('serials', old.generation);
      const fenced = await refusal(old.write(live, [{ put: { _id: 'S-1', position: 1 } }]));
      expect(fenced).to.be.instanceOf(LeaseLostError);
      expect((fenced as Error).message).to.include('under token 1 refused: token 2 was taken since');

      const down = new ReadStoreUnavailableError(new Error('connection reset'));
      const failing: GenerationStore = { ...live, generation: live.generation, write: () => Promise.reject(down) };
      expect(await refusal(old.write(failing, [{ put: { _id: 'S-1', position: 1 } }]))).to.equal(down);
    });
  });
}
