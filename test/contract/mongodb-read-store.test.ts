/**
 * The ReadStore contract against MongoDB (a MongoDB leg: runs when MONGODB_URL is set). Each test gets its own
 * database, dropped at the end.
 */
import { expect } from 'chai';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { SNAPSHOT_TTL_MS, SnapshotExpiredError } from '../../shared/ports/read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { generationSnapshotContract } from './generation-snapshot.contract.ts';
import { leaseContract } from './lease.contract.ts';
import { orphanGenerationsContract } from './orphan-generations.contract.ts';
import { readStoreContract } from './read-store.contract.ts';
import { generationsContract } from './generations.contract.ts';

describeMongo('MongoDB read store', 'the ReadStore contract against MongoDB', (leg) => {
  readStoreContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('contract')));
  generationsContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('generations')));
  leaseContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('leases')));
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

  it('a snapshot is read until SNAPSHOT_TTL_MS after its pointer read, and refused after (its generation may be dropped)', async () => {
    let now = 0;
    const store = await createMongoReadStore(leg.url, leg.database('expiry'), { now: () => now });
    try {
      await store.write('watches', [{ put: { _id: 'a', position: 1 } }]);
      const snapshot = await store.snapshot();
      now = SNAPSHOT_TTL_MS;
      expect((await snapshot.find('watches', {})).map((doc) => doc._id)).to.deep.equal(['a']);
      expect(await snapshot.count('watches', {})).to.equal(1);
      now = SNAPSHOT_TTL_MS + 1;
      for (const read of [snapshot.find('watches', {}), snapshot.count('watches', {}), snapshot.get('watches', 'a'), snapshot.getMany('watches', ['a'])]) {
        expect(await read.then(() => 'served', (error: unknown) => error)).to.be.instanceOf(SnapshotExpiredError);
      }
      expect(await store.get('watches', 'a'), 'the store\'s own reads are not a snapshot\'s').to.deep.equal({ _id: 'a', position: 1 });
    } finally {
      await store.close();
    }
  });
});
