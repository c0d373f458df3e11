/**
 * The ReadStore contract against MongoDB (a MongoDB leg: runs when MONGODB_URL is set). Each test gets its own
 * database, dropped at the end.
 */
import { expect } from 'chai';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { generationSnapshotContract } from './generation-snapshot.contract.ts';
import { leaseContract } from './lease.contract.ts';
import { readStoreContract } from './read-store.contract.ts';

describeMongo('MongoDB read store', 'the ReadStore contract against MongoDB', (leg) => {
  readStoreContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('contract')));
  leaseContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('leases')));
  generationSnapshotContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('snapshot')));

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
});
