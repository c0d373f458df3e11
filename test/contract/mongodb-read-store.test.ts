/**
 * The ReadStore contract against MongoDB. Runs only when MONGODB_URL is set (no MongoDB server on a developer
 * machine by default); each test gets its own database, dropped at the end.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { readStoreContract } from './read-store.contract.ts';

const url = process.env['MONGODB_URL'];

if (!url) {
  describe('ReadStore contract: MongoDB', function () {
    before(function () {
      console.log('    skipped: MONGODB_URL is not set, so the MongoDB read store leg does not run');
      this.skip();
    });
    it('runs the ReadStore contract against MongoDB when MONGODB_URL is set', function () {});
  });
} else {
  describe('MongoDB read store', function () {
    const databases: string[] = [];
    after(async function () {
      const client = await MongoClient.connect(url);
      try {
        for (const name of databases) await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    });
    readStoreContract('MongoDB', async () => {
      const name = `watchcat_contract_${randomUUID().slice(0, 8)}`;
      databases.push(name);
      return createMongoReadStore(url, name);
    });
  });
}
