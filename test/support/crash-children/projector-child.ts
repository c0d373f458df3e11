/**
 * A child process for the projector crash test: the real projector (runner, in-process queue) over a SQLite event
 * store and a journaled read store that survives the process, running every projection to the head in small
 * batches, then printing DONE. With KILL_AT_WRITE > 0 it SIGKILLs itself right after that many read-store writes.
 * With MONGODB_URL and MONGODB_DB set, the read store is that MongoDB database instead of the journal.
 * Usage: node --import tsx projector-child.ts EVENTS_FILE JOURNAL_FILE BATCH_SIZE [KILL_AT_WRITE]
 */
import { pino } from 'pino';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createInlineJobQueue } from '../../../shared/adapters/inline-job-queue.ts';
import { createProjector } from '../../../projector/runner.ts';
import { createMongoReadStore } from '../../../shared/adapters/mongodb-read-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { openJournaledReadStore } from '../journaled-read-store.ts';

const [eventsFile, journal, batchSize, killAtWrite] = process.argv.slice(2);
if (!eventsFile || !journal || !batchSize) throw new Error('usage: projector-child.ts EVENTS_FILE JOURNAL_FILE BATCH_SIZE');

const eventStore = openSqliteEventStore(eventsFile);
const mongoUrl = process.env['MONGODB_URL'];
const mongoDb = process.env['MONGODB_DB'];
const readStore = mongoUrl && mongoDb
  ? killedAfterWrites(await createMongoReadStore(mongoUrl, mongoDb), Number(killAtWrite ?? 0))
  : await openJournaledReadStore(journal, Number(killAtWrite ?? 0));

/** MongoDB keeps every write itself; the process only has to die right after the n-th (documents or control). */
function killedAfterWrites(store: ReadStore, killAt: number): ReadStore & { replayed: number } {
  let writes = 0;
  const counted = async <T>(write: Promise<T>): Promise<T> => {
    const result = await write;
    writes += 1;
    if (writes === killAt) process.kill(process.pid, 'SIGKILL');
    return result;
  };
  return {
    ...store,
    replayed: 0,
    write: (collection, ops) => counted(store.write(collection, ops)),
    generation: (collection, generation) => {
      const real = store.generation(collection, generation);
      return { ...real, write: (ops, options) => counted(real.write(ops, options)) };
    },
    setControl: (doc, condition, insertIfAbsent) => counted(store.setControl(doc, condition, insertIfAbsent)),
  };
}
const projector = createProjector({
  eventStore, readStore, queue: createInlineJobQueue({ attempts: 1, backoffMs: 10 }), logger: pino({ level: 'warn' }, process.stderr),
  batchSize: Number(batchSize),
  // Each restart is the same worker: it takes over the lease its killed incarnation held.
  owner: 'projector-child',
});
process.stdout.write(`READY ${readStore.replayed}\n`);
await projector.catchUp();
const failed = projector.status().filter((status) => status.status === 'parked');
process.stdout.write(failed.length === 0 ? 'DONE\n' : `FAILED ${JSON.stringify(failed)}\n`);
await eventStore.close();
await readStore.close();
