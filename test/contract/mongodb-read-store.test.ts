/**
 * The ReadStore contract against MongoDB (a MongoDB leg: runs when MONGODB_URL is set). Each test gets its own
 * database, dropped at the end.
 */
import { expect } from 'chai';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { SNAPSHOT_TTL_MS, SnapshotExpiredError, type ReadView } from '../../shared/ports/read-store.ts';
import { reserveGeneration, switchGenerations } from '../../shared/read-model/projections/generations.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { generationSnapshotContract } from './generation-snapshot.contract.ts';
import { leaseContract } from './lease.contract.ts';
import { leaseClocksContract } from './lease-clocks.contract.ts';
import { leaseRefusalsContract } from './lease-refusals.contract.ts';
import { orphanGenerationsContract } from './orphan-generations.contract.ts';
import { readStoreContract } from './read-store.contract.ts';
import { generationsContract } from './generations.contract.ts';

describeMongo('MongoDB read store', 'the ReadStore contract against MongoDB', (leg) => {
  readStoreContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('contract')));
  generationsContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('generations')));
  leaseContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('leases')));
  leaseRefusalsContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('lease-refusals')));
  leaseClocksContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('lease-clocks')));
  generationSnapshotContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('snapshot')));
  orphanGenerationsContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('orphans')));

  it('opens again on a database whose indexes exist (every process start after the first) and reads what was written', async () => {
    const database = leg.database('reopen');
    const first = await createMongoReadStore(leg.url, database);
    const doc = { _id: 'en:A', position: 3, lang: 'en', reference: 'A' };
    try {
      await first.write('watches', [{ put: doc }]);
    } finally {
      await first.close();
    }
    const second = await createMongoReadStore(leg.url, database);
    try {
      expect(await second.get('watches', 'en:A')).to.deep.equal(doc);
    } finally {
      await second.close();
    }
  });

  it('a snapshot read ending after SNAPSHOT_TTL_MS is served while its generation is still live, refused once a switch replaced it', async () => {
    let now = 0;
    const store = await createMongoReadStore(leg.url, leg.database('expiry'), { now: () => now });
    const reads = (view: ReadView) => [view.find('watches', {}), view.count('watches', {}), view.get('watches', 'a'), view.getMany('watches', ['a'])];
    try {
      await store.write('watches', [{ put: { _id: 'a', position: 1 } }]);
      const snapshot = await store.snapshot();
      now = SNAPSHOT_TTL_MS + 1;
      // Slow, but no switch: a slow engine or a busy machine never fails a request.
      expect(await Promise.all(reads(snapshot))).to.deep.equal([[{ _id: 'a', position: 1 }], 1, { _id: 'a', position: 1 }, [{ _id: 'a', position: 1 }]]);
      const next = await reserveGeneration(store);
      await store.resetGeneration('watches', next);
      await switchGenerations(store, ['watches'], next, {});
      for (const read of await Promise.allSettled(reads(snapshot))) {
        expect(read.status === 'rejected' && read.reason).to.be.instanceOf(SnapshotExpiredError);
      }
      expect(await snapshot.find('checkpoints', {}), 'the control documents have no generations').to.be.an('array');
      expect(await store.get('watches', 'a'), 'the store\'s own reads are not a snapshot\'s: the new, empty generation').to.equal(null);
    } finally {
      await store.close();
    }
  });
});
