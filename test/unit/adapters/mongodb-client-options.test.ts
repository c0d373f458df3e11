/**
 * The MongoDB read store reads from the primary at its latest acknowledged writes whatever `MONGODB_URL` asks: a
 * secondary's reads lag, and the read-model clock would take a confirmation seen late as a fresh one
 * (shared/adapters/mongodb-read-store.ts). Checked on the official driver's own client, which applies a URL's options
 * and the given ones in its own order; nothing connects.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { READ_STORE_CLIENT_OPTIONS } from '../../../shared/adapters/mongodb-read-store.ts';

describe('the MongoDB read store\'s client', () => {
  for (const asked of ['readPreference=secondary', 'readPreference=secondaryPreferred&readConcernLevel=available', 'readPreference=nearest&readConcernLevel=majority']) {
    it(`reads from the primary, at its local read concern, when the URL asks ${asked}`, async () => {
      const client = new MongoClient(`mongodb://127.0.0.1:1/?${asked}`, READ_STORE_CLIENT_OPTIONS);
      try {
        expect(client.readPreference.mode).to.equal('primary');
        expect(client.readConcern?.level).to.equal('local');
      } finally {
        await client.close();
      }
    });
  }
});
