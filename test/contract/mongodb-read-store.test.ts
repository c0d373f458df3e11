/**
 * The ReadStore contract against MongoDB (a MongoDB leg: runs when MONGODB_URL is set). Each test gets its own
 * database, dropped at the end.
 */
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { readStoreContract } from './read-store.contract.ts';

describeMongo('MongoDB read store', 'the ReadStore contract against MongoDB', (leg) => {
  readStoreContract('MongoDB', async () => createMongoReadStore(leg.url, leg.database('contract')), {
    beforeSwitchTest: (context) => leg.requires(context, 'rename-drop-target'),
  });
});
