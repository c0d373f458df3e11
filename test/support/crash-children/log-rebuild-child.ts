/**
 * A child process for the multi-process test of issue 40's defect 4: a rebuild of the transparency log (the code
 * `watchcat rebuild` runs) over a SQLite event store into a MongoDB database, which takes the log's lease right after
 * its live owner renewed it, stops just before its check and switch, prints WAITING, and goes on once the file GO_FILE exists; it then prints SWITCHED <generation>, or
 * REFUSED <message> when it refused its switch.
 * Usage: node --import tsx log-rebuild-child.ts EVENTS_FILE GO_FILE (MONGODB_URL and MONGODB_DB set)
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMongoReadStore } from '../../../shared/adapters/mongodb-read-store.ts';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { leaseId } from '../../../shared/read-model/projections/control-docs.ts';
import type { Projection } from '../../../shared/read-model/projections/projection.ts';
import { rebuild, RebuildRefusedError } from '../../../shared/read-model/projections/rebuild.ts';
import { transparencyLogProjection } from '../../../shared/read-model/projections/transparency-log.projection.ts';

const [eventsFile, goFile] = process.argv.slice(2);
const mongoUrl = process.env['MONGODB_URL'];
const mongoDb = process.env['MONGODB_DB'];
if (!eventsFile || !goFile || !mongoUrl || !mongoDb) throw new Error('usage: log-rebuild-child.ts EVENTS_FILE GO_FILE, with MONGODB_URL and MONGODB_DB');

const eventStore = openSqliteEventStore(eventsFile);
const readStore = await createMongoReadStore(mongoUrl, mongoDb);
const projection = transparencyLogProjection as unknown as Projection;

/**
 * The store with the rebuild's first take of the log's lease held until its live owner has just renewed it: the
 * owner then learns of the takeover only at its next renewal, a third of a lease later (lease.ts), and an event
 * appended before that reaches it while it still believes it holds the lease, as it did under load.
 */
function preemptingRightAfterARenewal(store: ReadStore): ReadStore {
  let waited = false;
  const expiry = async () => (await store.readControl()).find((doc) => doc._id === leaseId(projection.name))?.['expires_at'];
  return {
    ...store,
    setControl: async (doc, condition, insertIfAbsent) => {
      if (!waited && doc._id === leaseId(projection.name)) {
        waited = true;
        const before = await expiry();
        while ((await expiry()) === before) await sleep(5);
      }
      return store.setControl(doc, condition, insertIfAbsent);
    },
  };
}

try {
  const result = await rebuild({
    eventStore, readStore: preemptingRightAfterARenewal(readStore), projections: [projection],
    beforeSwitch: async () => {
      console.log('WAITING');
      while (!existsSync(goFile)) await sleep(20);
    },
  });
  console.log(`SWITCHED ${result.generation}`);
} catch (error) {
  if (!(error instanceof RebuildRefusedError)) throw error;
  console.log(`REFUSED ${error.message}`);
} finally {
  await readStore.close();
  await eventStore.close();
}
